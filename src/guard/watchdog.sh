#!/bin/sh
# GPU Rental idle guard. Runs on the instance (onstart starts it in the background) and stops
# or destroys the instance through the service API after it has been idle for a while, or at
# a hard cap, whether or not a laptop with VS Code is open. POSIX sh: dash, busybox sh, bash.
#
# Busy = any signal (docs/idle-guard.md has the table, proven by test/unit/guard/matrix.test.ts):
# a GPU at or above GPU_GUARD_GPU_BELOW %; no GPU reading where one is expected (nvidia-smi
# missing on a GPU machine, failing or hanging: unknown is never idle); snoozed; the heartbeat
# file touched within GPU_GUARD_HEARTBEAT_SECONDS; connections to sshd (any port it listens on)
# or to Jupyter, seen on two ticks in a row; a busy Jupyter kernel; a process whose command line
# holds one of GPU_GUARD_BUSY_WHILE (|-separated). Idle for IDLE_S in a row: beforeStop, then act.
# Keep a job alive from a training loop:  touch /tmp/gpu-rental/busy  (every few minutes).
# Snooze: an epoch time in /tmp/gpu-rental/snooze-until. State: state.json, log: guard.log.
# Test knobs: GPU_GUARD_TICK (s), GPU_GUARD_IDLE_SECONDS, GPU_GUARD_SMI_SECONDS.
# Shipped with comments and indentation stripped, gzip+base64, in the create request's env
# (GPU_GUARD_SCRIPT; onstart only unpacks and starts it): keep it small.
# shellcheck disable=SC2004,SC2013 # $ in arithmetic: the minifier renames variables by their $; words are wanted.

# $1 when it is a whole number, else $2.
num() {
  case $1 in
    '' | *[!0-9]*) echo "$2" ;;
    *) echo "$1" ;;
  esac
}

D=${TMPDIR:-/tmp}/gpu-rental
TICK=$(num "$GPU_GUARD_TICK" 60)
[ "$TICK" -ge 1 ] || TICK=1
IDLE_S=$(num "$GPU_GUARD_IDLE_SECONDS" $(($(num "$GPU_GUARD_IDLE_MINUTES" 30) * 60)))
BELOW=$(num "$GPU_GUARD_GPU_BELOW" 5)
CAP_S=$(num "$GPU_GUARD_CAP_SECONDS" 0)
CAP_WHY=${GPU_GUARD_CAP_WHY:-cap}
HB=${GPU_GUARD_HEARTBEAT:-$D/busy}
HB_S=$(num "$GPU_GUARD_HEARTBEAT_SECONDS" 600)
# Rented with GPUs unless told 0: then no reading is not evidence of idleness.
GPUS=$(num "$GPU_GUARD_GPUS" 1)
SMI_S=$(num "$GPU_GUARD_SMI_SECONDS" 20)
#@jupyter
JP=$(num "$GPU_GUARD_JUPYTER_PORT" 8080)
#@
ACTION=stop
[ "$GPU_GUARD_ACTION" = destroy ] && ACTION=destroy
mkdir -p "$D" || exit 1
LOG=$D/guard.log
PIDF=$D/guard.pid

# Only changes are logged (a few lines a day), so the log needs no rotation.
log() {
  echo "$(date -u +%FT%TZ) $*" >>"$LOG"
}

# The tools it needs: without one it cannot act (curl) or cannot judge, and says so at once.
NEED=
for t in curl awk sed tr stat cut grep head; do
  command -v $t >/dev/null 2>&1 || NEED="$NEED${NEED:+, }$t"
done
# $1 seconds, then a command: run it, killed after that long (status 137 then).
limit() {
  s=$1
  shift
  "$@" &
  p=$!
  (
    sleep "$s"
    kill -9 $p
  ) >/dev/null 2>&1 &
  k=$!
  wait $p
  r=$?
  kill $k
  return $r
}

# A live guard is known by its pid, this boot's id and its command line (the script's own
# path): after a container stop (SIGKILL, no trap) or a reboot another process may hold the
# old pid, and that must not keep this guard from starting.
BOOT=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
alive() {
  [ -n "$1" ] && [ "$1" != $$ ] && [ "$2" = "${BOOT:--}" ] && kill -0 "$1" 2>/dev/null || return 1
  tr '\0' '\n' <"/proc/$1/cmdline" | grep -qxF -- "$0"
}
old=
oldboot=
[ -f "$PIDF" ] && read -r old oldboot <"$PIDF"
if alive "$old" "$oldboot"; then
  log "guard $old is already running"
  exit 0
fi
[ -n "$old" ] && log "restarted (guard $old is gone)"
echo "$$ ${BOOT:--}" >"$PIDF"
trap 'rm -f "$PIDF"; exit 0' TERM INT HUP

START=$(date +%s)
NOW=$START
FAILS=0 NEXT=0 SSH=0 JUP=0 PREV=0
unset IDLE_SINCE ERR GPU GPU_NOTE HB_AGE SNOOZED BUSY WAS DONE_AT

write_state() {
  # Positional, "" for none (src/guard/watchdogState.ts names the fields): it must fit in onstart.
  printf '[2,%s,%s,%s,"%s",%s,"%s",%s,%s,%s,%s,%s,"%s",%s,%s,"%s",%s,%s,"%s","%s",%s,%s]\n' $$ "$START" "$NOW" "$ACTION" "$IDLE_S" "$GPU_NOTE" "${GPU:-null}" "$SSH" "$JUP" \
    "${HB_AGE:-null}" "${SNOOZED:-null}" "$BUSY" "${IDLE_SINCE:-null}" "$CAP_S" "$CAP_WHY" "$FAILS" "$NEXT" "$ERR" "$NEED" "${DONE_AT:-null}" "$TICK" >"$D/state.tmp" && mv -f "$D/state.tmp" "$D/state.json"
}

# The busiest GPU; GPU_NOTE: ok, none (no GPU rented, no nvidia-smi), missing, failing, hanging.
gpu() {
  GPU=
  GPU_NOTE=none
  command -v nvidia-smi >/dev/null 2>&1 || {
    [ "$GPUS" = 0 ] || GPU_NOTE=missing
    return
  }
  limit "$SMI_S" nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits >"$D/smi.out" 2>/dev/null
  case $? in
    0) GPU_NOTE=failing ;;
    137) GPU_NOTE=hanging && return ;;
    *) GPU_NOTE=failing && return ;;
  esac
  # Lines that are not numbers ([N/A]) are skipped.
  GPU=$(awk '/^ *[0-9]+ *$/ && (m == "" || $1 > m) { m = $1 + 0 } END { print m }' "$D/smi.out")
  [ -n "$GPU" ] && GPU_NOTE=ok
}

# Established TCP connections to the ports ($1, decimal) and to the listening sockets ($2,
# "[inode] ..."); a connection is counted once, on the server's side.
conns() {
  cat "/proc/net/tcp" "/proc/net/tcp6" 2>/dev/null | awk -v x="$1" -v i="$2" '
  { sub(/.*:/, "", $2) }
  $4 == "0A" && index(i, "[" $10 "]") { L[$2] = 1 }
  $4 == "01" { E[$2]++ }
  END { n = split(x, a, " "); for (k = 1; k <= n; k++) L[sprintf("%04X", a[k])] = 1; for (p in L) c += E[p]; print c + 0 }'
}

# Sessions on every port sshd (or sshd-session) listens on, whatever the image chose; on 22 (or
# GPU_GUARD_SSH_PORT) in any case; and on the port SSH is published on, which is sshd's own where
# nothing translates it (host networking, the simulator).
ssh_count() {
  i=$(for c in $(grep -l '^sshd' /proc/[0-9]*/comm 2>/dev/null); do ls -l "${c%comm}fd"; done 2>/dev/null | sed -n 's/.*socket:/ /p')
  conns "$VAST_TCP_PORT_22 ${GPU_GUARD_SSH_PORT:-22}" "$i"
}

#@jupyter
# A Jupyter kernel that is running code (Jupyter's REST API, its token from the environment). A
# Jupyter that accepts and does not answer in time is unknown, and unknown is never idle (K says which).
kernel() {
  K="kernel busy"
  for s in https http; do
    : >"$D/k.out"
    printf 'header = "Authorization: token %s"\n' "$JUPYTER_TOKEN" | curl -sk -m 5 -K - -o "$D/k.out" "$s://127.0.0.1:$JP/api/kernels" 2>/dev/null
    r=$?
    o=$(tr -d ' \n' <"$D/k.out")
    [ $r = 0 ] && [ -n "$o" ] && break
    [ $r = 28 ] && K="not answering" && return 0
  done
  case $o in *'"execution_state":"busy"'*) return 0 ;; esac
  return 1
}
#@

#@busyWhile
# A process whose command line holds one of the |-separated GPU_GUARD_BUSY_WHILE (its name in W).
proc() {
  [ -n "$GPU_GUARD_BUSY_WHILE" ] || return 1
  set -f
  o=$IFS
  IFS='|'
  # shellcheck disable=SC2086
  set -- $GPU_GUARD_BUSY_WHILE
  IFS=$o
  set +f
  for W; do
    for f in $(grep -lF -- "${W%% *}" /proc/[0-9]*/cmdline 2>/dev/null); do
      case $(tr '\0' ' ' <"$f" 2>/dev/null) in *GPU_GUARD_*) ;; *"$W"*) return 0 ;; esac
    done
  done
  return 1
}
#@

sample() {
  gpu
  PREV=$(($SSH + $JUP))
  SSH=$(num "$(ssh_count)" 0)
  #@jupyter
  JUP=$(num "$(conns "$JP")" 0)
  #@
  HB_AGE=
  t=$(stat -c %Y "$HB" 2>/dev/null) && HB_AGE=$(($NOW - t))
  SNOOZED=$(num "$(cut -d. -f1 "$D/snooze-until" 2>/dev/null)" 0)
  [ "$SNOOZED" -gt "$NOW" ] || SNOOZED=
}

# Why it is busy now (empty: idle). Connections count when seen on two ticks in a row: a brief
# one (VS Code reading this state) is no session.
judge() {
  BUSY=
  if [ "$GPU_NOTE" = ok ] && [ "$GPU" -ge "$BELOW" ]; then
    BUSY="GPU at $GPU %"
  elif [ "$GPU_NOTE" != ok ] && [ "$GPU_NOTE" != none ]; then
    BUSY="no GPU reading (nvidia-smi $GPU_NOTE)"
  elif [ -n "$NEED" ]; then
    BUSY="cannot judge (no $NEED)"
  elif [ -n "$SNOOZED" ]; then
    BUSY=snoozed
  elif [ -n "$HB_AGE" ] && [ "$HB_AGE" -lt "$HB_S" ]; then
    BUSY=heartbeat
  elif [ "$GPU_GUARD_KEEP_WHILE_SSH" != 0 ] && [ "$SSH" -gt 0 ] && [ "$PREV" -gt 0 ]; then
    BUSY="ssh $SSH"
  #@jupyter
  elif [ "$JUP" -gt 0 ] && [ "$PREV" -gt 0 ]; then
    BUSY="jupyter $JUP"
  elif kernel; then
    BUSY="jupyter $K"
  #@
  #@busyWhile
  elif proc; then
    BUSY="process $W"
  #@
  fi
}

# One API call on this instance: $1 method, $2 JSON body (or empty). CODE is the HTTP status
# (0: no answer), the answer is in api.out and in $o (no blanks), complaints in api.err.
call() {
  url="${GPU_GUARD_API:-https://console.vast.ai}/api/v0/instances/$CONTAINER_ID/"
  : >"$D/api.err"
  : >"$D/api.out"
  # The key goes in through stdin, never onto a command line that ps shows. Without curl the
  # shell's "curl: not found" lands in api.err (and the state says "cannot act: no curl").
  CODE=$(printf 'header = "Authorization: Bearer %s"\n' "$CONTAINER_API_KEY" |
    curl -sS -m 30 -K - -o "$D/api.out" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' ${2:+-d "$2"} "$url" 2>"$D/api.err")
  CODE=$(num "$CODE" 0)
  case $CODE in 0*) CODE=0 ;; esac
  o=$(tr -d ' \n' <"$D/api.out")
}

# The stop (or destroy), then a read of this instance to confirm it. ERR says why not.
act() {
  if [ "$ACTION" = destroy ]; then call DELETE; else call PUT '{"state":"stopped"}'; fi
  # The service's error code, as a word (its text goes no further than this).
  SAYS=$(echo "$o" | sed -n 's/.*"error":"\([A-Za-z0-9_.-]\{1,60\}\)".*/\1/p')
  case $CODE:$o in
    2??:*'"success":false'* | 429:*)
      ERR="$ACTION refused: ${SAYS:-HTTP $CODE}"
      return 1
      ;;
    2??:*) ;;
    *)
      ERR="$ACTION failed (HTTP $CODE)${SAYS:+ $SAYS} $(head -c 200 "$D/api.err" | tr -cd 'A-Za-z0-9 ,.:()/_-')"
      return 1
      ;;
  esac
  # Keys that may not read their instance (401/403): the accepted answer is all there is.
  call GET
  case $ACTION:$CODE:$o in
    *:40[13]:* | destroy:404:* | destroy:2??:*'"instances":null'* | destroy:2??:*'"instances":{}'* | stop:2??:*'"intended_status":"stopped"'*) return 0 ;;
  esac
  ERR="$ACTION accepted, not confirmed (read: HTTP $CODE)"
  return 1
}

if [ -z "$CONTAINER_ID" ] || [ -z "$CONTAINER_API_KEY" ]; then
  NEED="CONTAINER_ID or CONTAINER_API_KEY"
  log "cannot act: no $NEED"
  write_state
  rm -f "$PIDF"
  exit 1
fi
log "started: $ACTION after $IDLE_S s idle, GPU below $BELOW %"
write_state

while :; do
  NOW=$(date +%s)
  sample
  judge
  if [ -n "$BUSY" ]; then
    # Each change of signal is logged once, e.g. "busy (ssh 1)".
    [ "${BUSY%% *}" != "$WAS" ] && log "busy ($BUSY)"
    WAS=${BUSY%% *}
    IDLE_SINCE=
  elif [ -z "$IDLE_SINCE" ]; then
    IDLE_SINCE=$NOW
    WAS=
    log "idle (GPU ${GPU:-$GPU_NOTE}, SSH $SSH)"
  fi
  due=
  if [ "$CAP_S" -gt 0 ] && [ $(($NOW - $START)) -ge "$CAP_S" ]; then
    due=$CAP_WHY
  elif [ -n "$IDLE_SINCE" ] && [ $(($NOW - $IDLE_SINCE)) -ge "$IDLE_S" ]; then
    due=idle
  fi
  if [ -z "$due" ]; then
    FAILS=0
    ERR=
  elif [ "$NOW" -ge "$NEXT" ]; then
    # The template's beforeStop (a checkpoint, a copy of outputs), once, its output in this log.
    #@beforeStop
    if [ "$FAILS" = 0 ] && [ -n "$GPU_GUARD_BEFORE_STOP" ]; then
      s=$(num "$GPU_GUARD_BEFORE_STOP_SECONDS" 300)
      log "beforeStop (at most $s s)"
      limit "$s" sh -c "$GPU_GUARD_BEFORE_STOP" </dev/null >>"$LOG" 2>&1
      log "beforeStop exit $?"
    fi
    #@
    log "$ACTION now ($due)"
    if act; then
      DONE_AT=$NOW
      ERR=
      log "$ACTION accepted and confirmed"
      write_state
      rm -f "$PIDF"
      exit 0
    fi
    # Back off: tick, 2x, 4x ... at most 15 minutes; never a tight loop.
    FAILS=$(($FAILS + 1))
    w=900
    [ "$FAILS" -lt 10 ] && w=$(($TICK << ($FAILS - 1)))
    [ "$w" -gt 900 ] && w=900
    NEXT=$(($NOW + w))
    log "$ERR; retrying in $w s"
  fi
  write_state
  sleep "$TICK"
done
