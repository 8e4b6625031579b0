/**
 * The host side of `opencode serve`'s HTTP API, recorded as the corpus records it
 * (`tests/corpus/opencode/README.md`): every event of the `GET /event` stream (SSE, one JSON
 * `data` each) goes to `Normalizer.received`; every call the host makes goes to `Normalizer.sent`
 * as `{method, path, body?, response: {status, body}}` once its answer is in, placed where it was
 * sent. Events that arrive while a call is in flight are held and pushed after its record, the
 * order the capture wrote (a call's record first, then the events it caused).
 */
import type { Answer } from "@agentwire/node";

import type { Host } from "./drive.ts";

/** How many times `GET /event` is tried, 200 ms apart, before the test fails. */
const CONNECT_ATTEMPTS = 25;

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

export class OpencodeClient {
  readonly host: Host;
  readonly url: string;
  private readonly stream = new AbortController();
  private readonly held: Array<{ readonly line: string; readonly at: number }> = [];
  private inFlight = 0;

  private constructor(host: Host, url: string) {
    this.host = host;
    this.url = url;
  }

  /** Waits for the server's URL, subscribes to `GET /event` and waits for its `server.connected`. */
  static async connect(host: Host): Promise<OpencodeClient> {
    const client = new OpencodeClient(host, await host.url());
    const response = await client.subscribe();
    if (!response.ok || response.body === null) throw new Error(`GET /event: ${response.status}`);
    void client.read(response.body);
    await host.message("server.connected", (message) => message.type === "server.connected");
    return client;
  }

  /**
   * `GET /event`, tried again while the connection fails: the server prints its URL before it
   * serves, and a request made at once was seen reset (`ECONNRESET`) once in 8 starts.
   */
  private async subscribe(): Promise<Response> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fetch(`${this.url}/event`, { headers: { accept: "text/event-stream" }, signal: this.stream.signal });
      } catch (error) {
        if (attempt === CONNECT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** One call to the server, recorded with its answer; a status other than 2xx fails. */
  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const at = Date.now();
    this.inFlight += 1;
    try {
      const init = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
      const response = await fetch(`${this.url}${path}`, init);
      const text = await response.text();
      const answer: unknown = text === "" ? null : JSON.parse(text);
      const call: Call = body === undefined ? { method, path } : { method, path, body };
      this.host.sent(JSON.stringify({ ...call, response: { status: response.status, body: answer } }), at);
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return answer;
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const { line, at: arrived } of this.held.splice(0)) this.host.received(line, arrived);
    }
  }

  /** Answers an open request: the call `Normalizer.answer` builds, made and recorded. */
  async answer(answer: Answer): Promise<void> {
    const call = JSON.parse(this.host.reply(answer)) as Call;
    await this.call(call.method, call.path, call.body);
  }

  /** Ends the event stream (before the server is stopped, so that no read fails mid-event). */
  close(): void {
    this.stream.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of body) {
        // `opencode serve` ends every SSE line with a bare LF.
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          this.event(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (error) {
      if (!this.stream.signal.aborted) throw error;
    }
  }

  /** One SSE event: its `data` lines joined (comments and `event:`/`id:` fields are not kept). */
  private event(block: string): void {
    const data = block
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length === 0) return;
    const line = data.join("\n");
    if (this.inFlight > 0) this.held.push({ line, at: Date.now() });
    else this.host.received(line, Date.now());
  }
}
