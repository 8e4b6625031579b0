/**
 * The host loop every live test runs, whatever the agent: start the real agent program as a
 * child in its own process group, feed every message it sends to `Normalizer.received` and every
 * message the host sends to `Normalizer.sent`, and let the test wait for canonical events (or, to
 * drive the protocol, for the agent's own messages), answer requests with `Normalizer.answer`,
 * then stop the agent and `finish`. A `stdio` agent's messages are its stdout lines and the
 * host's go to its stdin; an `http` agent is a server that prints the URL it listens on, and
 * the protocol's client (`opencode.ts`) pushes what it reads and sends through `received` and
 * `sent`.
 *
 * Each `received` call is timed (`performance.now()` around it): the time from a line in to its
 * events out, kept per family for the report the test files print.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { type Answer, type LineProblem, Normalizer, type Source } from "@agentwire/node";
import type { ProviderRuntimeEvent } from "@agentwire/provider-runtime";

/** The live package's folder (`tests/typescript/live`). */
export const LIVE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

/** How long one wait may take before the test fails, naming what it waited for. */
const WAIT_MS = 60_000;

export interface AgentProcess {
  /** The family's name in the latency report: `codex-app-server`, `claude-control`, `acp`, ... */
  readonly family: string;
  readonly from: Source;
  /** `stdio`: one JSON message a line each way; `http`: a server, its stdout a log naming its URL. */
  readonly speaks: "stdio" | "http";
  readonly command: string;
  readonly args: ReadonlyArray<string>;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

type Message = Record<string, unknown>;

interface Waiter<T> {
  readonly label: string;
  readonly test: (value: T) => boolean;
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
}

/** Milliseconds of each `received` call, by family, over every run of the test process. */
export const latencies = new Map<string, Array<number>>();

export class Host {
  readonly agent: AgentProcess;
  readonly events: Array<ProviderRuntimeEvent> = [];
  readonly messages: Array<Message> = [];
  /** Every message both ways as `{dir, ts, msg}` records (`in`: from the agent), in order. */
  readonly transcript: Array<{ readonly dir: "in" | "out"; readonly ts: number; readonly msg: unknown }> = [];
  private readonly normalizer: Normalizer;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly timings: Array<number>;
  private readonly exited: Promise<number | null>;
  /** The URL an `http` agent prints it listens on; none for a `stdio` agent. */
  private readonly listening: Promise<string> | undefined;
  /** The tail of the agent's stderr (and of an `http` agent's stdout), for failure messages. */
  private stderr = "";
  /** Set when the agent has exited: a wait begun after that fails at once. */
  private exitError: Error | undefined;
  private eventWaiters: Array<Waiter<ProviderRuntimeEvent>> = [];
  private messageWaiters: Array<Waiter<Message>> = [];

  constructor(agent: AgentProcess) {
    this.agent = agent;
    this.normalizer = new Normalizer({ from: agent.from });
    const timings = latencies.get(agent.family) ?? [];
    latencies.set(agent.family, timings);
    this.timings = timings;
    this.child = spawn(agent.command, [...agent.args], { cwd: agent.cwd, env: { ...agent.env }, detached: true, stdio: "pipe" });
    const log = (chunk: Buffer | string): void => {
      this.stderr = (this.stderr + chunk.toString()).slice(-8000);
    };
    this.child.stderr.on("data", log);
    const stdout = createInterface({ input: this.child.stdout });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    if (agent.speaks === "stdio") {
      stdout.on("line", (line) => this.received(line));
      this.listening = undefined;
    } else {
      this.listening = new Promise((resolve, reject) => {
        stdout.on("line", (line) => {
          log(`${line}\n`);
          const url = /listening on (https?:\/\/\S+)/.exec(line)?.[1];
          if (url !== undefined) resolve(url.replace(/\/$/, ""));
        });
        void this.exited.then((code) => reject(new Error(`${agent.family} exited (${code}) before listening; output:\n${this.stderr}`)));
        setTimeout(() => reject(new Error(`${agent.family}: not listening after ${WAIT_MS} ms; output:\n${this.stderr}`)), WAIT_MS).unref();
      });
    }
    void this.exited.then((code) => {
      this.exitError = new Error(`${agent.family} exited (${code}) while waiting; stderr:\n${this.stderr}`);
      for (const waiter of [...this.eventWaiters, ...this.messageWaiters]) waiter.reject(this.exitError);
      this.eventWaiters = [];
      this.messageWaiters = [];
    });
  }

  get problems(): ReadonlyArray<LineProblem> {
    return this.normalizer.problems;
  }

  /** The URL an `http` agent listens on, once it has printed it. */
  url(): Promise<string> {
    return this.listening ?? Promise.reject(new Error(`${this.agent.family} speaks over stdio, not http`));
  }

  /** Writes a message (an object, or a line built by `answer`) to a `stdio` agent's stdin and to `sent`. */
  write(message: Message | string): void {
    const line = typeof message === "string" ? message : JSON.stringify(message);
    this.sent(line, Date.now());
    this.child.stdin.write(`${line}\n`);
  }

  /** A message the host sent, as a JSON line, at `at`: to the transcript and `Normalizer.sent`. */
  sent(line: string, at: number): void {
    this.transcript.push({ dir: "out", ts: at, msg: JSON.parse(line) as unknown });
    this.take(this.normalizer.sent(line, at));
  }

  /** The provider's reply to an open request, as `Normalizer.answer` builds it. */
  reply(answer: Answer): string {
    return this.normalizer.answer(answer);
  }

  /** Answers an open request of a `stdio` agent: the reply, written and sent. */
  answer(answer: Answer): void {
    this.write(this.reply(answer));
  }

  /** The first canonical event (seen or to come) that passes `test`. */
  event(label: string, test: (event: ProviderRuntimeEvent) => boolean): Promise<ProviderRuntimeEvent> {
    const seen = this.events.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return this.wait(label, test, this.eventWaiters);
  }

  /** The first message of the agent's own protocol (seen or to come) that passes `test`. */
  message(label: string, test: (message: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return this.wait(label, test, this.messageWaiters);
  }

  /**
   * Closes the agent's stdin, gives it `graceMs` to exit (a server, which stdin does not stop,
   * none), then stops its process group, and settles what is open: the events of `finish`.
   */
  async close(graceMs = this.agent.speaks === "stdio" ? 3000 : 0): Promise<Array<ProviderRuntimeEvent>> {
    this.child.stdin.end();
    const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), graceMs).unref());
    if ((await Promise.race([this.exited, timer])) === "late") this.kill("SIGTERM");
    if ((await Promise.race([this.exited, new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 2000).unref())])) === "late") {
      this.kill("SIGKILL");
    }
    // Children the agent left in its group (a shell tool) go with it.
    this.kill("SIGKILL");
    const finished = this.normalizer.finish();
    this.take(finished);
    return finished;
  }

  private kill(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  /** A message the agent sent, as a JSON line, received at `at`: timed through `Normalizer.received`. */
  received(line: string, at = Date.now()): void {
    const started = performance.now();
    const events = this.normalizer.received(line, at);
    this.timings.push(performance.now() - started);
    this.take(events);
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null) return;
    this.transcript.push({ dir: "in", ts: at, msg: message });
    this.messages.push(message as Message);
    this.messageWaiters = this.settle(this.messageWaiters, message as Message);
  }

  private take(events: Array<ProviderRuntimeEvent>): void {
    for (const event of events) {
      this.events.push(event);
      this.eventWaiters = this.settle(this.eventWaiters, event);
    }
  }

  private settle<T>(waiters: Array<Waiter<T>>, value: T): Array<Waiter<T>> {
    return waiters.filter((waiter) => {
      if (!waiter.test(value)) return true;
      waiter.resolve(value);
      return false;
    });
  }

  private wait<T>(label: string, test: (value: T) => boolean, waiters: Array<Waiter<T>>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.exitError !== undefined) {
        reject(this.exitError);
        return;
      }
      const timer = setTimeout(() => {
        reject(new Error(`${this.agent.family}: no ${label} after ${WAIT_MS} ms; events: ${this.events.map((event) => event.type).join(", ")}; stderr:\n${this.stderr}`));
      }, WAIT_MS);
      waiters.push({
        label,
        test,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }
}

/**
 * A JSON-RPC 2.0 request (ACP) written to the agent; `reply` waits for the agent's reply to it
 * and gives its `result` (an `error` reply fails, naming the method).
 */
export const jsonRpc = (host: Host, id: number, method: string, params: Record<string, unknown>) => {
  host.write({ jsonrpc: "2.0", id, method, params });
  return {
    reply: async (): Promise<Record<string, unknown>> => {
      const reply = await host.message(`the reply to ${method}`, (message) => message.id === id && !("method" in message));
      if (!("result" in reply)) throw new Error(`${method} failed: ${JSON.stringify(reply)}`);
      return reply.result as Record<string, unknown>;
    },
  };
};

/** Runs `script` against a fresh agent process and closes it, whatever the script does. */
export const drive = async <T>(agent: AgentProcess, script: (host: Host) => Promise<T>): Promise<{ host: Host; result: T }> => {
  const host = new Host(agent);
  try {
    const result = await script(host);
    await host.close();
    return { host, result };
  } catch (error) {
    await host.close(0);
    throw error;
  }
};

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/**
 * Prints the p50 and p99 of a family's `received` times and writes them to
 * `out/latency-<family>.json` (gitignored).
 */
export const reportLatency = (family: string): void => {
  const sorted = [...(latencies.get(family) ?? [])].sort((a, b) => a - b);
  const report = {
    family,
    lines: sorted.length,
    p50Ms: Number(percentile(sorted, 50).toFixed(4)),
    p99Ms: Number(percentile(sorted, 99).toFixed(4)),
    maxMs: Number((sorted.at(-1) ?? Number.NaN).toFixed(4)),
  };
  console.log(`latency ${family}: ${report.lines} lines, p50 ${report.p50Ms} ms, p99 ${report.p99Ms} ms, max ${report.maxMs} ms`);
  const out = join(LIVE_DIR, "out");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `latency-${family}.json`), `${JSON.stringify(report)}\n`);
};
