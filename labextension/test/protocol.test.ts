/**
 * The panel's validator agrees with the kernel's: both check the shared
 * examples in tests/fixtures/comm_messages.json against the same schema.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  checkKernelMessage,
  checkRequest,
  prepareValidators,
  requestState,
  runDebug,
  selectFunction
} from '../src/protocol';

interface ICase {
  direction: 'kernel' | 'frontend';
  why?: string;
  message: unknown;
}

const fixtures: { valid: ICase[]; invalid: ICase[] } = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'tests', 'fixtures', 'comm_messages.json'), 'utf-8')
);

const check = (c: ICase) =>
  c.direction === 'kernel' ? checkKernelMessage(c.message) : checkRequest(c.message);

describe('xjit/2 validation', () => {
  test.each(fixtures.valid.map(c => [(c.message as any).type, c]))('valid %s', (_, c) => {
    expect(check(c as ICase)).toBeNull();
  });

  test.each(fixtures.invalid.map(c => [c.why, c]))('invalid: %s', (_, c) => {
    expect(check(c as ICase)).toEqual(expect.any(String));
  });

  test('every message type has a validator, compiled ahead of use', () => {
    expect(() => prepareValidators()).not.toThrow();
  });

  test('request builders produce valid requests', () => {
    for (const r of [requestState(), runDebug(), selectFunction(3)]) {
      expect(checkRequest(r)).toBeNull();
    }
    expect(checkRequest(selectFunction(-1))).toMatch(/fun_id/);
  });

  test('errors say which field is wrong', () => {
    const err = checkKernelMessage({ protocol: 'xjit/2', type: 'hello' });
    expect(err).toMatch(/xjit_version/);
    expect(checkKernelMessage({ protocol: 'xjit/2', type: 'request_state' })).toMatch(/unknown type/);
    expect(checkKernelMessage(null)).toMatch(/not an object/);
  });
});
