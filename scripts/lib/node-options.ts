// The Node.js options the server runs with in production: deploy/Dockerfile and
// deploy/invoicing.service set them in NODE_OPTIONS; the rehearsal's instances and the bench's API
// server (bench/lib/servers.ts) are started with the same (test/deploy/runtime-tree.test.ts holds
// the three files to this value).
//
// Why a heap limit: without one, V8 sizes the old generation from the machine's memory (about 4 GB
// on a 24 GB host) and lets garbage promoted by requests in flight pile up to 100+ MB before a full
// collection; the service's live heap is 30-45 MB. With 512 MB the peak resident size under the
// bench's load fell from 230-237 MB to 156 MB, at the same CPU per request (214-218 µs vs 212-219).
export const SERVER_NODE_OPTIONS = '--max-old-space-size=512';
