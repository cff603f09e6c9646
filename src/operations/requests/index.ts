// What support asks of the request log (src/request-log/): `requests list` (a company's requests,
// filtered), `requests show` (one request by the X-Request-Id the partner received: what it
// created or replayed, the events it caused and what became of their deliveries), `keys usage`
// (a key's requests and refusals per day) and `usage` (a company's or a key's usage over 24 hours,
// 7 or 30 days: the console's /usage page). Usage is read from the hourly rollups the log's writer
// keeps (src/request-log/usage.ts), never from a scan of the log. Every query is bound to one
// company: `list` requires it, `show` names it, and whatever `show` links to is read within the
// request's company only.
//
// This file is the folder's entry: the four operations as merged into src/operations/index.ts, and
// what other files import. Read the others in this order: logged-request.ts (a request as the
// operator sees it, shared), list.ts, show.ts, key-usage.ts, then usage-report.ts.
import { companyArg, idArg, optionalId, optionalMoment } from '../arguments.js';
import { requireCompany } from '../companies.js';
import { define, limitArg } from '../define.js';
import { keyUsage } from './key-usage.js';
import { errorCodeArg, listRequests, routeArg, statusArg } from './list.js';
import { requestIdArg, showRequest } from './show.js';
import { requireKeyOf, usageReport, windowArg } from './usage-report.js';

export { listRequests, type RequestQuery } from './list.js';
export { routeTemplate } from './logged-request.js';
export { showRequest } from './show.js';
export {
  USAGE_WINDOWS,
  type UsagePoint,
  type UsageReport,
  type UsageWindow,
  usageReport,
} from './usage-report.js';

// ---- the operations (merged into src/operations/index.ts) ----

export const requestOperations = {
  'requests.list': define({
    reads: true,
    parse: (raw) => ({
      companyId: companyArg(raw),
      apiKeyId: optionalId(raw, 'key', 'key'),
      status: statusArg(raw),
      since: optionalMoment(raw, 'since'),
      until: optionalMoment(raw, 'until'),
      route: routeArg(raw),
      errorCode: errorCodeArg(raw),
      limit: limitArg(raw, 50),
    }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      return { company_id: args.companyId, requests: await listRequests(context, args) };
    },
  }),
  'requests.show': define({
    reads: true,
    parse: (raw) => ({ requestId: requestIdArg(raw) }),
    run: (context, args) => showRequest(context, args.requestId),
  }),
  'keys.usage': define({
    reads: true,
    parse: (raw) => ({ id: idArg(raw, 'id', { key: 'arg.label.key_id' }) }),
    run: (context, args) => keyUsage(context, args.id),
  }),
  usage: define({
    reads: true,
    parse: (raw) => ({
      companyId: companyArg(raw),
      apiKeyId: optionalId(raw, 'key', 'key'),
      window: windowArg(raw),
    }),
    run: async (context, args) => {
      await requireCompany(context.db, args.companyId);
      await requireKeyOf(context, args.companyId, args.apiKeyId);
      return usageReport(context, args);
    },
  }),
};
