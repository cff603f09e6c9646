// What the error log says about a failed query: the SQL text and the driver's error, never the
// query's parameters (the caller's data).
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { loggableError } from '../../src/http/error-handler.js';

describe('loggableError', () => {
  it('keeps the SQL text and the cause, drops the parameters', () => {
    const cause = Object.assign(new Error('invalid input syntax for type integer'), { code: '22P02' });
    const error = new DrizzleQueryError('select * from customers where id = $1', ['secret-value-123'], cause);
    const logged = loggableError(error);
    expect(logged).toMatchObject({
      query: 'select * from customers where id = $1',
      cause: { code: '22P02', message: 'invalid input syntax for type integer' },
    });
    expect(JSON.stringify(logged)).not.toContain('secret-value-123');
  });

  it('clips long messages', () => {
    const logged = loggableError(new Error('x'.repeat(5000)));
    expect(String(logged.message).length).toBeLessThan(600);
  });
});
