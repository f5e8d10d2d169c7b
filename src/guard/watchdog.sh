#!/bin/sh
# GPU Rental idle guard. Runs on the instance (onstart starts it in the background) and stops
# or destroys the instance through the service API after it has been idle for a while, or at
# a hard cap, whether or not a laptop with VS Code is open. POSIX sh: dash, busybox sh, bash.
#
# Idle = every GPU below GPU_GUARD_GPU_BELOW %, no heartbeat (the file's mtime) within
# GPU_GUARD_HEARTBEAT_SECONDS, not snoozed, and with GPU_GUARD_KEEP_WHILE_SSH=1 no SSH session.
# Keep a job alive from a training loop:  touch /tmp/gpu-rental/busy  (every few minutes).
# Snooze: an epoch time in /tmp/gpu-rental/snooze-until. State: state.json, log: guard.log.
# Without nvidia-smi (a CPU image) it judges by SSH sessions and the heartbeat only.
# Test knobs: GPU_GUARD_TICK (s), GPU_GUARD_IDLE_SECONDS, GPU_GUARD_SSH_CMD (prints a count).
# This file is embedded in onstart with comments and indentation stripped: keep it small.

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
ACTION=stop
[ "$GPU_GUARD_ACTION" = destroy ] && ACTION=destroy
mkdir -p "$D" || exit 1
LOG=$D/guard.log
PIDF=$D/guard.pid

# Only changes are logged (a few lines a day), so the log needs no rotation.
log() {
  echo "$(date -u +%FT%TZ) $*" >>"$LOG"
}

# JSON: a string; empty is null. Strings are our own words, or ERR (sanitised).
js() {
  if [ -z "$1" ]; then echo null; else echo "\"$1\""; fi
}

# A live guard is known by its pid, this boot's id and its command line (the script's own
# path): after a container stop (SIGKILL, no trap) or a reboot another process may hold the
# old pid, and that must not keep this guard from starting.
BOOT=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
alive() {
  [ -n "$1" ] && [ "$1" != $$ ] && [ "$2" = "${BOOT:--}" ] && kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/cmdline" ] || return 0
  tr '\0' '\n' <"/proc/$1/cmdline" | grep -qxF -- "$0"
}
old=
oldboot=
[ -f "$PIDF" ] && read -r old oldboot <"$PIDF"
if alive "$old" "$oldboot"; then
  log "guard $old is already running"
  exit 0
fi
[ -n "$old" ] && log "restarted (guard $old of an earlier start is gone)"
echo "$$ ${BOOT:--}" >"$PIDF"
trap 'rm -f "$PIDF"; exit 0' TERM INT HUP

START=$(date +%s)
NOW=$START
IDLE_SINCE=
FAILS=0
NEXT=0
ERR=
GPU=
GPU_NOTE=
SSH=0
PREV_SSH=0
HB_AGE=
SNOOZED=
BUSY=
DONE_AT=

write_state() {
  at=
  [ -n "$IDLE_SINCE" ] && at=$((IDLE_SINCE + IDLE_S))
  cap=
  [ "$CAP_S" -gt 0 ] && cap=$((START + CAP_S))
  printf '{"version":1,"pid":%s,"startedAt":%s,"updatedAt":%s,"action":"%s","idleLimitSeconds":%s,"gpu":%s,"gpuUtil":%s,"sshSessions":%s,"heartbeatAgeSeconds":%s,"snoozedUntil":%s,"busyReason":%s,"idleSince":%s,"actAt":%s,"capAt":%s,"capReason":%s,"failures":%s,"nextRetryAt":%s,"lastError":%s,"doneAt":%s,"tickSeconds":%s}\n' \
    $$ "$START" "$NOW" "$ACTION" "$IDLE_S" "$(js "$GPU_NOTE")" "${GPU:-null}" "$SSH" "${HB_AGE:-null}" \
    "${SNOOZED:-null}" "$(js "$BUSY")" "${IDLE_SINCE:-null}" "${at:-null}" "${cap:-null}" "$(js "$CAP_WHY")" "$FAILS" \
    "$([ "$FAILS" -gt 0 ] && echo "$NEXT" || echo null)" "$(js "$ERR")" "${DONE_AT:-null}" "$TICK" >"$D/state.tmp" && mv -f "$D/state.tmp" "$D/state.json"
}

sample() {
  GPU=
  GPU_NOTE=none
  if command -v nvidia-smi >/dev/null 2>&1; then
    GPU_NOTE=unreadable
    # The busiest GPU counts; lines that are not numbers ([N/A]) are skipped.
    for v in $(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null); do
      v=$(num "$v" -1)
      [ "$v" -gt "${GPU:--1}" ] && GPU=$v && GPU_NOTE=ok
    done
  fi
  if [ -n "$GPU_GUARD_SSH_CMD" ]; then
    SSH=$(sh -c "$GPU_GUARD_SSH_CMD" 2>/dev/null)
  else
    # Established TCP connections (state 01) to the local sshd port.
    SSH=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$(printf :%04X "$(num "$GPU_GUARD_SSH_PORT" 22)")" '$4=="01"&&substr($2,length($2)-4)==p{n++}END{print n+0}')
  fi
  SSH=$(num "$SSH" 0)
  HB_AGE=
  t=$(stat -c %Y "$HB" 2>/dev/null) && HB_AGE=$((NOW - t))
  SNOOZED=$(num "$(cut -d. -f1 "$D/snooze-until" 2>/dev/null)" 0)
  [ "$SNOOZED" -gt "$NOW" ] || SNOOZED=
}

# One API call on this instance: $1 method, $2 JSON body (or empty). CODE is the HTTP status
# (0: no answer), the answer is in api.out and in $o (no blanks), complaints in api.err.
call() {
  url="${GPU_GUARD_API%/}/api/v0/instances/$CONTAINER_ID/"
  : >"$D/api.err"
  : >"$D/api.out"
  # The key goes in through stdin, never onto a command line that ps shows.
  if command -v curl >/dev/null 2>&1; then
    CODE=$(printf 'header = "Authorization: Bearer %s"\n' "$CONTAINER_API_KEY" |
      curl -sS -m 30 -K - -o "$D/api.out" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' ${2:+-d "$2"} "$url" 2>"$D/api.err")
  else
    echo "no curl on this image" >"$D/api.err"
  fi
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

if [ -z "$CONTAINER_ID" ] || [ -z "$CONTAINER_API_KEY" ] || [ -z "$GPU_GUARD_API" ]; then
  ERR="no CONTAINER_ID, CONTAINER_API_KEY or GPU_GUARD_API"
  log "$ERR"
  write_state
  rm -f "$PIDF"
  exit 1
fi
log "started: $ACTION after $IDLE_S s idle, GPU below $BELOW %, cap $CAP_S s"

while :; do
  NOW=$(date +%s)
  sample
  BUSY=
  if [ "$GPU_NOTE" = ok ] && [ "$GPU" -ge "$BELOW" ]; then
    BUSY="GPU at $GPU %"
  elif [ "$GPU_NOTE" = unreadable ]; then
    # nvidia-smi exists but gave no number: not evidence of idleness.
    BUSY="no GPU reading"
  elif [ -n "$SNOOZED" ]; then
    BUSY=snoozed
  elif [ -n "$HB_AGE" ] && [ "$HB_AGE" -lt "$HB_S" ]; then
    BUSY=heartbeat
  elif [ "$GPU_GUARD_KEEP_WHILE_SSH" != 0 ] && [ "$SSH" -gt 0 ] && [ "$PREV_SSH" -gt 0 ]; then
    # Seen on two ticks in a row: a brief connection (VS Code reading this state) is no session.
    BUSY="SSH session"
  fi
  PREV_SSH=$SSH
  if [ -n "$BUSY" ]; then
    [ -n "$IDLE_SINCE" ] && log "busy again: $BUSY"
    IDLE_SINCE=
  elif [ -z "$IDLE_SINCE" ]; then
    IDLE_SINCE=$NOW
    log "idle (GPU ${GPU:-$GPU_NOTE}, SSH $SSH)"
  fi
  due=
  if [ "$CAP_S" -gt 0 ] && [ $((NOW - START)) -ge "$CAP_S" ]; then
    due=$CAP_WHY
  elif [ -n "$IDLE_SINCE" ] && [ $((NOW - IDLE_SINCE)) -ge "$IDLE_S" ]; then
    due=idle
  fi
  if [ -z "$due" ]; then
    FAILS=0
    ERR=
  elif [ "$NOW" -ge "$NEXT" ]; then
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
    FAILS=$((FAILS + 1))
    w=$TICK
    i=1
    while [ "$i" -lt "$FAILS" ] && [ "$w" -lt 900 ]; do
      w=$((w * 2))
      i=$((i + 1))
    done
    [ "$w" -gt 900 ] && w=900
    NEXT=$((NOW + w))
    log "$ERR; retrying in $w s"
  fi
  write_state
  sleep "$TICK"
done
