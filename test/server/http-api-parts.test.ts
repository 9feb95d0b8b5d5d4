/**
 * The HTTP API's parts that need no store: the token comparison, which hosts count as
 * loopback, the error-to-status table, and the Prometheus text.
 */
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/server/dashboard.js';
import { statusOfCode } from '../../src/server/http-api/api-errors.js';
import { metricsText } from '../../src/server/http-api/health-routes.js';
import { sameToken } from '../../src/server/http-api/token.js';

describe('the HTTP API parts', () => {
  it('compares tokens whole, whatever their lengths', () => {
    expect(sameToken('sesame', 'sesame')).toBe(true);
    expect(sameToken('sesam', 'sesame')).toBe(false);
    expect(sameToken('sesame!', 'sesame')).toBe(false);
    expect(sameToken('', 'sesame')).toBe(false);
  });

  it('takes only this machine for loopback', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) {
      expect(isLoopback(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.com', '127.0.0.1.example.com']) {
      expect(isLoopback(host), host).toBe(false);
    }
  });

  it('maps typed error codes to statuses', () => {
    expect(statusOfCode('NOT_FOUND')).toBe(404);
    expect(statusOfCode('UNAUTHORIZED')).toBe(401);
    expect(statusOfCode('FORBIDDEN')).toBe(403);
    expect(statusOfCode('BODY_TOO_LARGE')).toBe(413);
    expect(statusOfCode('UNSUPPORTED_MEDIA_TYPE')).toBe(415);
    expect(statusOfCode('CONFLICT')).toBe(409);
    expect(statusOfCode('NO_SUCH_HOOK')).toBe(422);
    expect(statusOfCode('BAD_JSON')).toBe(400);
  });

  it('writes Prometheus text: HELP and TYPE per metric, labels escaped, the engine streams always', () => {
    const text = metricsText(
      {
        jobs: { RUNNING: 3, SUCCESS: 10 },
        streams: [
          { stream: 'task:"odd"\\name', messages: 2, claimed: 1, expiredLeases: 1, deadLetters: 4 },
        ],
        steps: 120,
        handlerRuns: 40,
      },
      { steps: 12.5, handlerRuns: 4 },
    );
    expect(text).toContain('# TYPE weft_jobs gauge\n');
    expect(text).toContain('weft_jobs{state="RUNNING"} 3\n');
    expect(text).toContain('weft_jobs{state="FAILURE"} 0\n');
    expect(text).toContain('# TYPE weft_steps_total counter\nweft_steps_total 120\n');
    expect(text).toContain('weft_steps_per_second 12.5\n');
    expect(text).toContain('weft_handler_runs_total 40\n');
    expect(text).toContain('weft_stream_depth{stream="task:\\"odd\\"\\\\name"} 2\n');
    expect(text).toContain('weft_lease_expiries{stream="task:\\"odd\\"\\\\name"} 1\n');
    expect(text).toContain('weft_dead_letters{stream="task:\\"odd\\"\\\\name"} 4\n');
    expect(text).toContain('weft_stream_depth{stream="engine"} 0\n');
    expect(text).toContain('weft_stream_depth{stream="durable"} 0\n');
    for (const line of text.trimEnd().split('\n')) {
      expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? [\d.]+)$/);
    }
  });
});
