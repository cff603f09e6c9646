// The breaking-change check of `npm run api:compat` (docs/site/en/compatibility.md): compares an
// OpenAPI 3.1 document with the released baseline and lists every change the policy calls breaking,
// each at its JSON path. Written here because the npm tools found (openapi-diff: OpenAPI 3.0 only;
// oasdiff: a downloaded binary) do not read this document or do not install from npm.
//
// One rule decides most cases: what the partner SENDS (parameters, request bodies) may only get
// more permissive, what the partner RECEIVES (responses, their headers, webhook deliveries) may only
// get more precise. Everything documentary (descriptions, summaries, examples of success bodies,
// tags, code samples) is ignored; new routes, new webhooks and new optional inputs are additive.
// Generated clients feel more than the JSON Schema's set of accepted values: a parameter's
// serialization (style, explode, allowReserved), a parameter declared for the whole path, a
// schema losing its type (a typed field becomes `unknown`), and any keyword that only constrains
// (anyOf, oneOf, not, if/then, dependentRequired, patternProperties...) appearing on what they send.

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

/** OpenAPI 3.1's defaults of a parameter's `style`, per location. */
const STYLE_DEFAULTS: Record<string, string> = {
  query: 'form',
  path: 'simple',
  header: 'simple',
  cookie: 'form',
};

/** Keywords that can only refuse values: new on a request, or gone from a response, is breaking. */
const CONSTRAINTS = [
  'not',
  'propertyNames',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;

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

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
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

  /**
   * The JSON types a schema allows, as a generated client types it: its `type`, else the union of
   * its anyOf/oneOf branches' types (when every branch has one), else its constant's or enum's.
   * `undefined`: untyped, any value.
   */
  private typesOf(doc: Node, value: unknown, depth = 0): string[] | undefined {
    const [schema] = this.resolve(doc, value, '');
    if (schema.type !== undefined)
      return Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = list(schema[key]);
      if (branches.length === 0 || depth > 8) continue;
      const types = branches.map((branch) => this.typesOf(doc, branch, depth + 1));
      if (types.every((each) => each !== undefined)) return [...new Set(types.flat())];
    }
    if ('const' in schema) return [jsonType(schema.const)];
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return [...new Set(schema.enum.map(jsonType))];
    return undefined;
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
      const headItem = node(headItems[name]);
      for (const method of METHODS) {
        const operation = node(item)[method];
        if (!isNode(operation)) continue;
        const path = child(itemPath, method);
        const other = headItem[method];
        if (!isNode(other)) {
          this.report(path, `${what} removed: ${method.toUpperCase()} ${name}`);
          continue;
        }
        if (!same(operation.security, other.security))
          this.report(child(path, 'security'), 'security changed');
        this.parameters(
          this.parametersOf(this.base, node(item), operation, itemPath, path),
          this.parametersOf(this.head, headItem, other, itemPath, path),
          sends,
        );
        this.requestBody(operation.requestBody, other.requestBody, child(path, 'requestBody'), sends);
        if (sends === 'request')
          this.responses(node(operation.responses), node(other.responses), child(path, 'responses'));
      }
    }
  }

  /**
   * An operation's parameters as a client sees them: those of its path item (shared by every
   * method) with the operation's own replacing any of the same name and location. Each keeps
   * where it is declared (`at`, its component's path for a `$ref`) and the list it is part of.
   */
  private parametersOf(doc: Node, item: Node, operation: Node, itemPath: string, path: string) {
    const parameters = new Map<string, { parameter: Node; at: string; list: string }>();
    for (const [owner, ownerPath] of [
      [item, itemPath],
      [operation, path],
    ] as const) {
      const listPath = child(ownerPath, 'parameters');
      list(owner.parameters).forEach((value, index) => {
        const [parameter, at] = this.resolve(doc, value, child(listPath, index));
        const name = String(parameter.name);
        const key = `${parameter.in}:${parameter.in === 'header' ? name.toLowerCase() : name}`;
        parameters.set(key, { parameter, at, list: listPath });
      });
    }
    return parameters;
  }

  private parameters(
    base: ReturnType<Comparison['parametersOf']>,
    head: ReturnType<Comparison['parametersOf']>,
    direction: Direction,
  ): void {
    for (const [key, { parameter, at }] of base) {
      const other = head.get(key)?.parameter;
      const label = `${parameter.in} parameter '${parameter.name}'`;
      if (!other) {
        this.report(at, `${label} removed`);
        continue;
      }
      if (direction === 'request' && !parameter.required && other.required)
        this.report(at, `${label} became required`);
      if (direction === 'response' && parameter.required && !other.required)
        this.report(at, `${label} is no longer always sent`);
      this.serialization(parameter, other, at, label, direction);
      this.schema(parameter.schema, other.schema, child(at, 'schema'), direction);
      if (isNode(parameter.content))
        this.content(parameter.content, node(other.content), child(at, 'content'), direction);
    }
    for (const [key, { parameter, list: at }] of head)
      if (!base.has(key) && direction === 'request' && parameter.required)
        this.report(at, `new required ${parameter.in} parameter '${parameter.name}'`);
  }

  /**
   * How a value is written into the URL or a header: a generated client writes `?ids=1,2` or
   * `?ids=1&ids=2` by `style` and `explode`, and escapes reserved characters unless
   * `allowReserved`; a server that now reads another form misreads every client built before.
   */
  private serialization(base: Node, head: Node, path: string, label: string, direction: Direction): void {
    const style = (parameter: Node) => String(parameter.style ?? STYLE_DEFAULTS[String(parameter.in)]);
    const explode = (parameter: Node) => (parameter.explode ?? style(parameter) === 'form') === true;
    if (style(base) !== style(head))
      this.report(path, `${label} style changed from ${style(base)} to ${style(head)}`);
    if (explode(base) !== explode(head))
      this.report(path, `${label} explode changed from ${explode(base)} to ${explode(head)}`);
    if (direction === 'request' && base.allowReserved === true && head.allowReserved !== true)
      this.report(path, `${label} no longer allows reserved characters unescaped (allowReserved)`);
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
        else {
          // A header's value is written as `style: simple`; `explode` says how an object in it is.
          const label = `response header ${name}`;
          const asHeader = (value: Node) => ({ ...value, in: 'header' });
          this.serialization(asHeader(header), asHeader(otherHeader), headerPath, label, 'response');
          this.schema(header.schema, otherHeader.schema, child(headerPath, 'schema'), 'response');
        }
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

    const baseTypes = this.typesOf(this.base, base);
    const headTypes = this.typesOf(this.head, head);
    if (request && baseTypes && headTypes) {
      const lost = baseTypes.filter((type) => !accepts(headTypes, type));
      if (lost.length > 0) this.report(at, `no longer accepts type ${lost.join(', ')}`);
    }
    if (!request && headTypes) {
      const gained = baseTypes ? headTypes.filter((type) => !accepts(baseTypes, type)) : headTypes;
      if (gained.length > 0) this.report(at, `may now be of type ${gained.join(', ')}`);
    }
    if (request && !baseTypes && headTypes) this.report(at, `now restricted to type ${headTypes.join(', ')}`);
    if (!request && baseTypes && !headTypes)
      this.report(at, `lost its type (${baseTypes.join(', ')}): a value of any type may now appear`);
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
    this.constraints(base, head, at, direction);
  }

  /**
   * Keywords that only narrow what is valid. On a request one appearing or changing may refuse
   * what was accepted; on a response one going away or changing lets through what never came.
   */
  private constraints(base: Node, head: Node, path: string, direction: Direction): void {
    const request = direction === 'request';
    const check = (key: string, from: unknown, to: unknown, at: string) => {
      if (same(from, to)) return;
      if (request && to !== undefined)
        this.report(
          at,
          from === undefined ? `new ${key}: what was accepted may now be refused` : `${key} changed`,
        );
      if (!request && from !== undefined)
        this.report(
          at,
          to === undefined ? `${key} removed: what it excluded may now appear` : `${key} changed`,
        );
    };
    for (const key of CONSTRAINTS) check(key, base[key], head[key], path);
    const condition = (schema: Node) =>
      schema.if === undefined ? undefined : [schema.if, schema.then, schema.else];
    check('if/then', condition(base), condition(head), path);
    for (const [key, values] of [
      ['dependentSchemas', (schema: Node) => this.dependentSchemas(schema)],
      ['patternProperties', (schema: Node) => node(schema.patternProperties)],
    ] as const) {
      const from = values(base);
      const to = values(head);
      for (const name of new Set([...Object.keys(from), ...Object.keys(to)])) {
        const at = child(child(path, key), name);
        if (key === 'patternProperties' && name in from && name in to)
          this.schema(from[name], to[name], at, direction);
        else check(`${key} '${name}'`, from[name], to[name], at);
      }
    }
    this.dependentRequired(base, head, path, direction);
  }

  /** `dependentSchemas`, and the schema form of 2019's `dependencies`. */
  private dependentSchemas(schema: Node): Node {
    const legacy = Object.entries(node(schema.dependencies)).filter(([, value]) => !Array.isArray(value));
    return { ...Object.fromEntries(legacy), ...node(schema.dependentSchemas) };
  }

  /** `dependentRequired` (and the array form of `dependencies`): fields required with another. */
  private dependentRequired(base: Node, head: Node, path: string, direction: Direction): void {
    const required = (schema: Node) => {
      const pairs = new Set<string>();
      const legacy = Object.entries(node(schema.dependencies)).filter(([, value]) => Array.isArray(value));
      for (const [name, names] of [...legacy, ...Object.entries(node(schema.dependentRequired))])
        for (const other of list(names)) pairs.add(JSON.stringify([name, other]));
      return pairs;
    };
    const from = required(base);
    const to = required(head);
    const at = child(path, 'dependentRequired');
    if (direction === 'request') {
      for (const pair of to)
        if (!from.has(pair)) {
          const [name, other] = JSON.parse(pair) as [string, string];
          this.report(at, `field '${other}' now required when '${name}' is sent`);
        }
    } else {
      for (const pair of from)
        if (!to.has(pair)) {
          const [name, other] = JSON.parse(pair) as [string, string];
          this.report(at, `field '${other}' is no longer always present with '${name}'`);
        }
    }
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
    if (baseParts.length === 0) {
      // On a request, where anything of the type passed, now only what matches the branches does.
      // On a response, branches only say more precisely what comes; the types above catch a
      // branch that lets a new type through.
      if (direction === 'request')
        this.report(at, `new ${key} of ${headParts.length} schemas: what was accepted may now be refused`);
      return;
    }
    if (headParts.length === 0 && (direction === 'request' || key !== 'allOf')) {
      // A request's alternatives lifted accept more; a response's are judged by its types above.
      return;
    }
    if (baseParts.length !== headParts.length) {
      // allOf adds constraints; anyOf/oneOf alternatives: fewer refuse inputs, more surprise readers;
      // a new oneOf branch may also match a value another branch matched: oneOf then refuses it.
      const fewer = headParts.length < baseParts.length;
      const request = direction === 'request';
      if (key === 'allOf' || request === fewer || (key === 'oneOf' && request))
        this.report(at, `${key} changed from ${baseParts.length} to ${headParts.length} schemas`);
      return;
    }
    baseParts.forEach((part, index) => {
      this.schema(part, headParts[index], child(at, index), direction);
    });
  }
}
