// The signed-in account: GET /api/v0/users/current/ (who, credit, the 2FA state of the key).
import type { ServiceApi } from './types';
import type { Pipeline } from './pipeline';

export function accountApi(p: Pipeline): Pick<ServiceApi, 'currentUser'> {
  return {
    async currentUser(o) {
      return p.send({ method: 'GET', path: '/api/v0/users/current/', schema: (s) => s.userSchema }, o);
    },
  };
}
