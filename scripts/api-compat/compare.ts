// The breaking-change check of `npm run api:compat` (docs/site/en/compatibility.md): compares an
// OpenAPI 3.1 document with the released baseline and lists every change the policy calls breaking,
// each at its JSON path. Written here because the npm tools found (openapi-diff: OpenAPI 3.0 only;
// oasdiff: a downloaded binary) do not read this document or do not install from npm.
//
// One rule decides most cases: what the partner SENDS (parameters, request bodies) may only get
// more permissive, what the partner RECEIVES (responses, their headers, webhook deliveries) may only
// get more precise. Everything documentary (descriptions, summaries, examples of success bodies,
// tags, code samples) is ignored; new routes, new webhooks and new optional inputs are additive.

/** A JSON value of the document. */
type Node = Record<string, unknown>;

/** `request`: written by the partner; `response`: read by the partner (a webhook delivery too). */
export type Direction = 'request' | 'response';

export interface Finding {
  /** Where in the baseline the promise was made (`$.paths['/customers'].post...`). */
  path: string;
  message: string;
}

export interface CompareOptions {
  /** Enums the docs call open (new values may appear): by default the webhook events' `type`. */
  isOpenEnum?: (path: string) => boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const EVENT_TYPE_FIELD = /^\$\.components\.schemas\.[A-Za-z]+Event\.properties\.type$/;

/** Bounds whose smaller value is stricter, and those whose larger value is. */
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];

export function compareDocuments(base: Node, head: Node, options: CompareOptions = {}): Finding[] {
  const run = new Comparison(base, head, options.isOpenEnum ?? ((path) => EVENT_TYPE_FIELD.test(path)));
  run.document();
  return run.findings;
}

/** `$.a['b/c'][2]`: a JSON path a reader can follow. */
export function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}['${key}']`;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function node(value: unknown): Node {
  return isNode(value) ? value : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function typesOf(schema: Node): string[] | undefined {
  if (schema.type === undefined) return undefined;
  return Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
}

function accepts(types: string[], type: string): boolean {
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

class Comparison {
  readonly findings: Finding[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly base: Node,
    private readonly head: Node,
    private readonly isOpenEnum: (path: string) => boolean,
  ) {}

  private report(path: string, message: string): void {
    const key = `${path} ${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.findings.push({ path, message });
  }

  /** Follows a local `$ref` (once per level); the path becomes the component's own. */
  private resolve(doc: Node, value: unknown, path: string): [Node, string] {
    const ref = node(value).$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return [node(value), path];
    const parts = ref.slice(2).split('/');
    let target: unknown = doc;
    for (const part of parts) target = node(target)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return [node(target), parts.reduce(child, '$')];
  }

  document(): void {
    const baseMajor = String(node(this.base.info).version ?? '').split('.')[0];
    const headMajor = String(node(this.head.info).version ?? '').split('.')[0];
    if (baseMajor !== headMajor)
      this.report('$.info.version', `major version changed from ${baseMajor} to ${headMajor}`);
    const address = (server: unknown) =>
      `${node(server).url} ${JSON.stringify(Object.entries(node(node(server).variables)).map(([k, v]) => [k, node(v).default]))}`;
    list(this.base.servers).forEach((server, index) => {
      if (!list(this.head.servers).some((other) => address(other) === address(server)))
        this.report(child('$.servers', index), 'server (base URL) removed or changed');
    });
    if (!same(this.base.security, this.head.security)) this.report('$.security', 'security changed');
    const baseSchemes = node(node(this.base.components).securitySchemes);
    const headSchemes = node(node(this.head.components).securitySchemes);
    for (const [name, scheme] of Object.entries(baseSchemes)) {
      const other = node(headSchemes[name]);
      const path = child('$.components.securitySchemes', name);
      if (!isNode(headSchemes[name])) this.report(path, 'security scheme removed');
      else if (scheme && (node(scheme).type !== other.type || node(scheme).scheme !== other.scheme))
        this.report(path, 'security scheme changed');
    }
    this.operations('paths', 'request', 'route');
    this.operations('webhooks', 'response', 'webhook event type');
  }

  /** Routes (the partner calls them) or webhooks (the service calls the partner). */
  private operations(section: 'paths' | 'webhooks', sends: Direction, what: string): void {
    const headItems = node(this.head[section]);
    for (const [name, item] of Object.entries(node(this.base[section]))) {
      const itemPath = child(`$.${section}`, name);
      for (const method of METHODS) {
        const operation = node(item)[method];
        if (!isNode(operation)) continue;
        const path = child(itemPath, method);
        const other = node(headItems[name])[method];
        if (!isNode(other)) this.report(path, `${what} removed: ${method.toUpperCase()} ${name}`);
        else this.operation(operation, other, path, sends);
      }
    }
  }

  private operation(base: Node, head: Node, path: string, sends: Direction): void {
    if (!same(base.security, head.security)) this.report(child(path, 'security'), 'security changed');
    this.parameters(base, head, path, sends);
    this.requestBody(base.requestBody, head.requestBody, child(path, 'requestBody'), sends);
    if (sends === 'request')
      this.responses(node(base.responses), node(head.responses), child(path, 'responses'));
  }

  private parameters(base: Node, head: Node, path: string, direction: Direction): void {
    const keyOf = (parameter: Node) =>
      `${parameter.in}:${parameter.in === 'header' ? String(parameter.name).toLowerCase() : parameter.name}`;
    const headParameters = new Map(
      list(head.parameters).map((value) => {
        const [parameter] = this.resolve(this.head, value, '');
        return [keyOf(parameter), parameter] as const;
      }),
    );
    const baseKeys = new Set<string>();
    list(base.parameters).forEach((value, index) => {
      const [parameter, at] = this.resolve(this.base, value, child(child(path, 'parameters'), index));
      const key = keyOf(parameter);
      baseKeys.add(key);
      const other = headParameters.get(key);
      const label = `${parameter.in} parameter '${parameter.name}'`;
      if (!other) {
        this.report(at, `${label} removed`);
        return;
      }
      if (direction === 'request' && !parameter.required && other.required)
        this.report(at, `${label} became required`);
      if (direction === 'response' && parameter.required && !other.required)
        this.report(at, `${label} is no longer always sent`);
      this.schema(parameter.schema, other.schema, child(at, 'schema'), direction);
    });
    for (const [key, parameter] of headParameters)
      if (!baseKeys.has(key) && direction === 'request' && parameter.required)
        this.report(child(path, 'parameters'), `new required ${parameter.in} parameter '${parameter.name}'`);
  }

  private requestBody(baseValue: unknown, headValue: unknown, path: string, direction: Direction): void {
    const [base, at] = this.resolve(this.base, baseValue, path);
    const [head] = this.resolve(this.head, headValue, path);
    if (!isNode(baseValue)) {
      if (direction === 'request' && head.required) this.report(path, 'new required request body');
      return;
    }
    if (!isNode(headValue)) {
      this.report(at, 'request body removed');
      return;
    }
    if (direction === 'request' && !base.required && head.required)
      this.report(at, 'request body became required');
    this.content(node(base.content), node(head.content), child(at, 'content'), direction);
  }

  private content(base: Node, head: Node, path: string, direction: Direction): void {
    for (const [type, media] of Object.entries(base)) {
      const at = child(path, type);
      if (!isNode(head[type])) this.report(at, `media type ${type} removed`);
      else this.schema(node(media).schema, node(head[type]).schema, child(at, 'schema'), direction);
    }
  }

  private responses(base: Node, head: Node, path: string): void {
    for (const status of Object.keys(head))
      if (!(status in base)) this.report(child(path, status), `new response status ${status}`);
    for (const [status, value] of Object.entries(base)) {
      const [response, at] = this.resolve(this.base, value, child(path, status));
      if (!(status in head)) {
        this.report(at, `response ${status} removed`);
        continue;
      }
      const [other] = this.resolve(this.head, head[status], at);
      const baseHeaders = node(response.headers);
      const headHeaders = new Map(Object.entries(node(other.headers)).map(([k, v]) => [k.toLowerCase(), v]));
      for (const [name, headerValue] of Object.entries(baseHeaders)) {
        const headerPath = child(child(at, 'headers'), name);
        const [header] = this.resolve(this.base, headerValue, headerPath);
        const [otherHeader] = this.resolve(this.head, headHeaders.get(name.toLowerCase()), headerPath);
        if (!headHeaders.has(name.toLowerCase())) this.report(headerPath, `response header ${name} removed`);
        else if (header.required && !otherHeader.required)
          this.report(headerPath, `response header ${name} is no longer always sent`);
        else this.schema(header.schema, otherHeader.schema, child(headerPath, 'schema'), 'response');
      }
      this.content(node(response.content), node(other.content), child(at, 'content'), 'response');
      if (Number(status) >= 400) this.errorCodes(response, other, at);
    }
  }

  /** An error response's examples are named by the codes it may carry: a new one is a new error there. */
  private errorCodes(base: Node, head: Node, path: string): void {
    const codes = (response: Node) =>
      new Set(
        Object.values(node(response.content)).flatMap((media) => Object.keys(node(node(media).examples))),
      );
    const baseCodes = codes(base);
    for (const code of codes(head))
      if (!baseCodes.has(code))
        this.report(child(path, 'content'), `new error code '${code}' at this status`);
  }

  private schema(baseValue: unknown, headValue: unknown, path: string, direction: Direction): void {
    if (baseValue === undefined) return;
    const [base, at] = this.resolve(this.base, baseValue, path);
    const [head] = this.resolve(this.head, headValue, path);
    const visit = `${direction} ${at} ${JSON.stringify(node(headValue).$ref ?? path)}`;
    if (this.seen.has(visit)) return;
    this.seen.add(visit);
    if (headValue === undefined) {
      this.report(at, 'schema removed');
      return;
    }
    const request = direction === 'request';

    const baseTypes = typesOf(base);
    const headTypes = typesOf(head);
    if (request && baseTypes && headTypes) {
      const lost = baseTypes.filter((type) => !accepts(headTypes, type));
      if (lost.length > 0) this.report(at, `no longer accepts type ${lost.join(', ')}`);
    }
    if (!request && headTypes) {
      const gained = baseTypes ? headTypes.filter((type) => !accepts(baseTypes, type)) : headTypes;
      if (gained.length > 0) this.report(at, `may now be of type ${gained.join(', ')}`);
    }
    if (request && !baseTypes && headTypes) this.report(at, `now restricted to type ${headTypes.join(', ')}`);
    if (base.nullable === true && head.nullable !== true && request) this.report(at, 'no longer nullable');
    if (base.nullable !== true && head.nullable === true && !request) this.report(at, 'may now be null');

    if (base.format !== head.format)
      this.report(at, `format changed from ${base.format ?? 'none'} to ${head.format ?? 'none'}`);
    // A constant appearing restricts what is sent; one changing or going away surprises a reader.
    if (request ? 'const' in head : 'const' in base) {
      if (!same(base.const, head.const))
        this.report(
          at,
          `constant changed from ${JSON.stringify(base.const)} to ${JSON.stringify(head.const)}`,
        );
    }
    this.enumeration(base, head, at, direction);
    this.bounds(base, head, at, direction);
    if (base.pattern !== head.pattern) {
      if (base.pattern !== undefined && head.pattern !== undefined) this.report(at, 'pattern changed');
      else if (request && head.pattern !== undefined) this.report(at, 'new pattern');
      else if (!request && base.pattern !== undefined) this.report(at, 'pattern removed');
    }
    if (base.multipleOf !== head.multipleOf && (request ? head.multipleOf : base.multipleOf) !== undefined)
      this.report(at, 'multipleOf changed');
    if (request && head.uniqueItems === true && base.uniqueItems !== true)
      this.report(at, 'items must now be unique');
    if (request && 'default' in base && !same(base.default, head.default))
      this.report(
        at,
        `default changed from ${JSON.stringify(base.default)} to ${JSON.stringify(head.default)}`,
      );

    this.object(base, head, at, direction);
    if (base.items !== undefined) this.schema(base.items, head.items ?? {}, child(at, 'items'), direction);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) this.composition(key, base, head, at, direction);
  }

  private enumeration(base: Node, head: Node, path: string, direction: Direction): void {
    const baseValues = base.enum === undefined ? undefined : list(base.enum);
    const headValues = head.enum === undefined ? undefined : list(head.enum);
    const has = (values: unknown[], value: unknown) => values.some((other) => same(other, value));
    if (baseValues) {
      const removed = headValues ? baseValues.filter((value) => !has(headValues, value)) : [];
      for (const value of removed) this.report(path, `enum value ${JSON.stringify(value)} removed`);
      if (!headValues && direction === 'response')
        this.report(path, 'enum removed: any value may now appear');
    }
    if (headValues && direction === 'response' && baseValues && !this.isOpenEnum(path))
      for (const value of headValues.filter((value) => !has(baseValues, value)))
        this.report(path, `new enum value ${JSON.stringify(value)} in a closed list`);
    if (headValues && !baseValues && direction === 'request') this.report(path, 'now restricted to an enum');
  }

  private bounds(base: Node, head: Node, path: string, direction: Direction): void {
    for (const [keys, upper] of [
      [UPPER_BOUNDS, true],
      [LOWER_BOUNDS, false],
    ] as const) {
      for (const key of keys) {
        const from = base[key] as number | undefined;
        const to = head[key] as number | undefined;
        if (from === to) continue;
        // Stricter: a bound appears, or moves inwards.
        const stricter = from === undefined || (to !== undefined && (upper ? to < from : to > from));
        const looser = !stricter;
        if ((direction === 'request' && stricter) || (direction === 'response' && looser))
          this.report(path, `${key} changed from ${from ?? 'none'} to ${to ?? 'none'}`);
      }
    }
  }

  private object(base: Node, head: Node, path: string, direction: Direction): void {
    const baseProperties = node(base.properties);
    const headProperties = node(head.properties);
    const baseRequired = new Set(list(base.required) as string[]);
    const headRequired = new Set(list(head.required) as string[]);
    for (const [name, schema] of Object.entries(baseProperties)) {
      const at = child(child(path, 'properties'), name);
      if (!(name in headProperties)) this.report(at, `field '${name}' removed`);
      else this.schema(schema, headProperties[name], at, direction);
    }
    if (direction === 'request') {
      for (const name of headRequired)
        if (!baseRequired.has(name))
          this.report(child(path, 'required'), `new required request field '${name}'`);
      if (
        base.additionalProperties !== false &&
        head.additionalProperties === false &&
        base.type !== undefined
      )
        this.report(path, 'unknown fields are now refused');
    } else {
      for (const name of baseRequired)
        if (!headRequired.has(name))
          this.report(child(path, 'required'), `field '${name}' is no longer always present`);
    }
    if (isNode(base.additionalProperties) && isNode(head.additionalProperties))
      this.schema(
        base.additionalProperties,
        head.additionalProperties,
        child(path, 'additionalProperties'),
        direction,
      );
  }

  private composition(
    key: 'allOf' | 'anyOf' | 'oneOf',
    base: Node,
    head: Node,
    path: string,
    direction: Direction,
  ) {
    const baseParts = list(base[key]);
    const headParts = list(head[key]);
    if (baseParts.length === 0 && headParts.length === 0) return;
    const at = child(path, key);
    if (baseParts.length !== headParts.length) {
      // allOf adds constraints; anyOf/oneOf alternatives: fewer refuse inputs, more surprise readers.
      const fewer = headParts.length < baseParts.length;
      if (key === 'allOf' || (direction === 'request') === fewer)
        this.report(at, `${key} changed from ${baseParts.length} to ${headParts.length} schemas`);
      return;
    }
    baseParts.forEach((part, index) => {
      this.schema(part, headParts[index], child(at, index), direction);
    });
  }
}
