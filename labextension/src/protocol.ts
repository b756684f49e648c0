/**
 * The `xjit/2` comm protocol, front-end side (see docs/comm-protocol.md).
 *
 * Every message received from the kernel and every request sent to it is
 * validated with ajv against the same JSON Schema the kernel uses
 * (`./schema.json` is a link to docs/comm-protocol.schema.json), dispatching
 * on `type` first so each direction admits only its own message types.
 */
import Ajv, { ValidateFunction } from 'ajv';
import schema from './schema.json';

export const PROTOCOL = 'xjit/2';
export const TARGET = 'xjit';

export interface ILocation {
  filename: string | null;
  lineno: number | null;
  cell_id: string | null;
  execution_count: number | null;
}

export type EventKind = 'trace' | 'lower' | 'compile' | 'cache_miss' | 'nan' | 'device';

export interface IEvent {
  kind: EventKind;
  time: number;
  fun_name: string;
  fun_id: number;
  location: ILocation;
  duration_s: number | null;
  reasons: string[];
  details: { [key: string]: unknown };
}

export interface IExecutes {
  fun_id: number;
  fun_name: string;
  count: number;
  total_s: number;
  last_s: number | null;
  first_time: number;
  last_time: number;
}

export interface IFunctionSummary {
  fun_id: number;
  name: string;
  location: ILocation;
  calls: number;
  cache_hits: number;
  cache_misses: number;
  trace_s: number | null;
  lower_s: number | null;
  compile_s: number | null;
  run_s: number | null;
  recompile_reasons: string[];
  budget_warning?: string | null;
  temp_bytes?: number | null;
  peak_bytes?: number | null;
}

export interface IFinding {
  kind: string;
  message: string;
  suggestion: string;
  location: ILocation;
  fun_name: string;
  count?: number | null;
}

/** One top-level equation; `source` indexes the reply's `sources`. */
export interface IEquation {
  index: number;
  text: string;
  primitive: string;
  nested: boolean;
  source: number | null;
}

/** One device's part of a value: `index` is its [start, stop) per dimension. */
export interface IShard {
  device: number;
  index: [number, number][];
  shape: number[];
}

/** How one argument or output of a call over many devices is laid out. */
export interface IValueSharding {
  path: string;
  type: string;
  spec: string;
  axes: string[][];
  replicated: boolean;
  shard_type: string;
  shards: IShard[];
}

/** One collective of the compiled program (its result per device). */
export interface ICollective {
  kind: string;
  name: string;
  shape: string;
  bytes: number;
  operand_bytes: number;
  axes: string[];
  groups: string;
  primitive: string | null;
  location: ILocation;
}

export interface ISharding {
  mesh: { name: string; size: number }[];
  devices: number[];
  platform: string;
  args: IValueSharding[];
  outs: IValueSharding[];
  collectives: ICollective[];
}

interface IBase {
  protocol: 'xjit/2';
}

export interface IHello extends IBase {
  type: 'hello';
  xjit_version: string;
}
export interface IState extends IBase {
  type: 'state';
  functions: IFunctionSummary[];
  findings: IFinding[];
  nan: IEvent | null;
  events: IEvent[];
  executes: IExecutes[];
}
export interface IBatch extends IBase {
  type: 'batch';
  seq: number;
  events: IEvent[];
  executes: IExecutes[];
  functions: IFunctionSummary[];
  dropped: number;
}
export interface IFunctionReply extends IBase {
  type: 'function';
  fun_id: number;
  name: string;
  header: string | null;
  footer: string | null;
  sources: ILocation[];
  equations: IEquation[];
  sharding?: ISharding | null; // over many devices
}
export interface IFindings extends IBase {
  type: 'findings';
  fun_name: string;
  findings: IFinding[];
}
export interface IDebug extends IBase {
  type: 'debug';
  status: 'started' | 'finished' | 'failed';
  message: string;
}
/** `xjit.debug.breakpoint()` stopped at its prompt, or resumed. */
export interface IBreakpoint extends IBase {
  type: 'breakpoint';
  status: 'stopped' | 'continued';
  function: string;
  location: ILocation;
  locals: { name: string; repr: string }[];
}
export interface IError extends IBase {
  type: 'error';
  message: string;
}

export type KernelMessage =
  | IHello
  | IState
  | IBatch
  | IFunctionReply
  | IFindings
  | IDebug
  | IBreakpoint
  | IError;

export type Request =
  | { protocol: 'xjit/2'; type: 'request_state' }
  | { protocol: 'xjit/2'; type: 'run_debug' }
  | { protocol: 'xjit/2'; type: 'select_function'; fun_id: number };

const KERNEL_TYPES = [
  'hello',
  'state',
  'batch',
  'function',
  'findings',
  'debug',
  'breakpoint',
  'error'
];
const FRONTEND_TYPES = ['request_state', 'run_debug', 'select_function'];

let ajv: Ajv | null = null;
const validators = new Map<string, ValidateFunction>();

function validatorFor(type: string): ValidateFunction {
  let v = validators.get(type);
  if (!v) {
    if (!ajv) {
      ajv = new Ajv({ allowUnionTypes: true, strict: true });
      ajv.addSchema(schema as object);
    }
    v = ajv.getSchema(`${(schema as { $id: string }).$id}#/definitions/${type}`);
    if (!v) {
      throw new Error(`schema has no definition for ${type}`);
    }
    validators.set(type, v);
  }
  return v;
}

/** Compile every message type's validator now (ajv compiles one the first
 * time its type is seen, which would otherwise land on a user's click:
 * the first `function` reply waited for its validator to be generated). */
export function prepareValidators(): void {
  KERNEL_TYPES.concat(FRONTEND_TYPES).forEach(validatorFor);
}

function check(msg: unknown, allowed: string[], direction: string): string | null {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
    return `${direction} message is not an object`;
  }
  const type = (msg as { type?: unknown }).type;
  if (typeof type !== 'string' || allowed.indexOf(type) < 0) {
    return `${direction} message has unknown type ${JSON.stringify(type)}`;
  }
  const validate = validatorFor(type);
  if (validate(msg)) {
    return null;
  }
  const e = (validate.errors || [])[0];
  const where = e ? e.instancePath || '<message>' : '<message>';
  return `invalid ${type} message at ${where}: ${e ? e.message : 'invalid'}`;
}

/** Null when `msg` is a valid kernel -> panel message, else why not. */
export function checkKernelMessage(msg: unknown): string | null {
  return check(msg, KERNEL_TYPES, 'incoming');
}

/** Null when `msg` is a valid panel -> kernel request, else why not. */
export function checkRequest(msg: unknown): string | null {
  return check(msg, FRONTEND_TYPES, 'outgoing');
}

export function isKernelMessage(msg: unknown): msg is KernelMessage {
  return checkKernelMessage(msg) === null;
}

export function requestState(): Request {
  return { protocol: PROTOCOL, type: 'request_state' };
}

export function runDebug(): Request {
  return { protocol: PROTOCOL, type: 'run_debug' };
}

export function selectFunction(funId: number): Request {
  return { protocol: PROTOCOL, type: 'select_function', fun_id: funId };
}
