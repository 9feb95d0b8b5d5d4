/**
 * HTTP requests exactly as written, for the tests that play a hostile client: any method,
 * any `Host`, `Origin` or content type (fetch forbids some), bodies sent whole, chunked,
 * or streamed without end until the server refuses them.
 */
import { request } from 'node:http';

/** What a raw request sends. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent with a Content-Length unless `chunked`. */
  body?: string;
  /** Send the body with `Transfer-Encoding: chunked`, in pieces of 1 KiB. */
  chunked?: boolean;
}

/** What came back. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body, read field by field
  json: any;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends one request to `base` (`http://host:port`) on a fresh connection. */
export function rawRequest(base: string, req: RawRequest): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    if (req.body !== undefined && !req.chunked && !('content-length' in headers)) {
      headers['content-length'] = String(Buffer.byteLength(req.body));
    }
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers,
        agent: false,
        setHost: !('host' in headers),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) });
        });
      },
    );
    outgoing.on('error', reject);
    if (req.body !== undefined && req.chunked) {
      for (let i = 0; i < req.body.length; i += 1024) outgoing.write(req.body.slice(i, i + 1024));
    } else if (req.body !== undefined) outgoing.write(req.body);
    outgoing.end();
  });
}

/** The answer to an endless body, and how much of it the server let the client send. */
export interface StreamedAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body
  json: any;
  /** Bytes of body written (accepted by the connection) before the answer came or it closed. */
  written: number;
}

/**
 * Streams a chunked body of up to `maxBytes` (64 KiB pieces, waiting whenever the
 * connection pushes back) and stops as soon as an answer arrives or the server closes
 * the connection.
 */
export function streamBody(
  base: string,
  req: Omit<RawRequest, 'body' | 'chunked'>,
  maxBytes: number,
): Promise<StreamedAnswer> {
  const url = new URL(base);
  const piece = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered: { status: number; json: unknown } | undefined;
    let finished = false;
    const finish = (error?: Error) => {
      if (finished) return;
      if (!answered && error) {
        finished = true;
        reject(error);
        return;
      }
      if (!answered) return;
      finished = true;
      resolve({ ...answered, written } as StreamedAnswer);
    };
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, 'transfer-encoding': 'chunked' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          answered = {
            status: res.statusCode ?? 0,
            json: parse(Buffer.concat(chunks).toString('utf8')),
          };
          outgoing.destroy();
          finish();
        });
        res.on('error', () => finish());
      },
    );
    outgoing.on('error', (error) => finish(error));
    outgoing.on('close', () => finish());
    const pump = () => {
      while (!answered && !outgoing.destroyed && written < maxBytes) {
        written += piece.length;
        if (!outgoing.write(piece)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      if (!answered && !outgoing.destroyed) outgoing.end();
    };
    pump();
  });
}
