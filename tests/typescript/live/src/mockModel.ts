/**
 * A scripted model server for the live agent tests, on 127.0.0.1 at a free port: the OpenAI
 * Responses API (SSE) Codex calls, the Anthropic Messages API (SSE) the Claude Code CLI and
 * OpenCode call, and the Gemini API (`:streamGenerateContent?alt=sse`) the Gemini CLI calls.
 * Nothing leaves the machine; every agent under test is configured to reach only this server.
 * An agent given this server as its HTTP proxy (OpenCode) has any request for another host
 * refused and listed as `api: "proxy"`.
 *
 * Every script is one tool call, then a final text: the first model request of a turn (no tool
 * result after the user's message yet) is answered with a shell command, the request carrying
 * its result with a closing sentence. A Messages or Gemini request without tools is a side query
 * (a title, a topic, a routing choice) and gets a short text, or JSON when a schema is asked for.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

/** The command every script runs: it writes a file, so no agent runs it without asking. */
export const COMMAND = "touch made_by_agent.txt && echo done";

/** What the mock was asked, for the tests' diagnostics when an agent misbehaves. */
export interface Request {
  readonly method: string;
  readonly path: string;
  readonly api: "responses" | "messages" | "gemini" | "proxy" | "other";
}

export interface MockModel {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly requests: ReadonlyArray<Request>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const readBody = async (request: IncomingMessage): Promise<Json> => {
  const chunks: Array<Buffer> = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return {};
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === "object" && parsed !== null ? (parsed as Json) : {};
};

const sendJson = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
};

/** An SSE stream: `event: <type>` and one JSON `data` line per event. */
const openStream = (response: ServerResponse): ((type: string, data: Json) => void) => {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
  return (type, data) => {
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
};

const pieces = (text: string, size: number): Array<string> => {
  const out: Array<string> = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length === 0 ? [""] : out;
};

const array = (value: unknown): Array<Json> => (Array.isArray(value) ? (value as Array<Json>) : []);

// ---- OpenAI Responses API (Codex) ----

/** The tool results after the last user message: 0 asks for the command, more for the end. */
const responsesStep = (body: Json): number => {
  const input = array(body.input);
  let lastUser = -1;
  input.forEach((item, index) => {
    if (item.type === "message" && item.role === "user") lastUser = index;
  });
  return input.slice(lastUser + 1).filter((item) => String(item.type).endsWith("_call_output")).length;
};

/** The arguments of Codex's shell tool, in the shape of whichever one it registered. */
const shellCall = (body: Json): { name: string; args: Json } => {
  const names = new Set(array(body.tools).map((tool) => String(tool.name ?? tool.type)));
  if (names.has("exec_command")) return { name: "exec_command", args: { cmd: COMMAND, yield_time_ms: 5000 } };
  if (names.has("shell_command")) return { name: "shell_command", args: { command: COMMAND, timeout_ms: 10000 } };
  return { name: "shell", args: { command: ["bash", "-lc", COMMAND], timeout_ms: 10000 } };
};

const responses = (body: Json, response: ServerResponse, serial: number): void => {
  const id = `resp_${serial}`;
  const model = String(body.model ?? "mock-model");
  let sequence = 0;
  const write = openStream(response);
  const send = (type: string, data: Json): void => write(type, { sequence_number: sequence++, ...data });
  const envelope = (status: string): Json => ({ id, object: "response", status, model, output: [] });
  send("response.created", { response: envelope("in_progress") });
  send("response.in_progress", { response: envelope("in_progress") });
  if (responsesStep(body) === 0) {
    const { name, args } = shellCall(body);
    const item = { type: "function_call", id: `fc_${serial}`, call_id: `call_${serial}`, name };
    const text = JSON.stringify(args);
    send("response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
    for (const delta of pieces(text, 16)) send("response.function_call_arguments.delta", { item_id: item.id, output_index: 0, delta });
    send("response.function_call_arguments.done", { item_id: item.id, output_index: 0, arguments: text });
    send("response.output_item.done", { output_index: 0, item: { ...item, arguments: text, status: "completed" } });
  } else {
    const text = "The command has run.";
    const item = { type: "message", id: `msg_${serial}`, role: "assistant" };
    const part = { type: "output_text", annotations: [] };
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
    send("response.content_part.added", { item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text: "" } });
    for (const delta of pieces(text, 8)) send("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta });
    send("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text });
    send("response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part: { ...part, text } });
    send("response.output_item.done", { output_index: 0, item: { ...item, status: "completed", content: [{ ...part, text }] } });
  }
  const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 };
  send("response.completed", { response: { ...envelope("completed"), usage } });
  response.end();
};

// ---- Anthropic Messages API (Claude Code, OpenCode) ----

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Json };

/** The text of the last user message of a Messages request (a string, or its text blocks). */
const lastUserText = (body: Json): string => {
  const user = array(body.messages).filter((message) => message.role === "user").at(-1);
  const content = user?.content;
  if (typeof content === "string") return content;
  return array(content)
    .map((block) => (typeof block.text === "string" ? block.text : ""))
    .join("");
};

/** A prompt asking for a slow answer gets one, streamed a word every 100 ms (a stop's window). */
const SLOW = "slowly";
const SLOW_ANSWER = Array.from({ length: 100 }, (_, index) => `word${index}`).join(" ");

const messagesTurn = (body: Json, serial: number): Array<Block> => {
  const tools = array(body.tools);
  if (tools.length === 0) return [{ type: "text", text: "Mock side answer" }];
  if (lastUserText(body).includes(SLOW)) return [{ type: "text", text: SLOW_ANSWER }];
  const answered = array(body.messages).some((message) => message.role === "assistant");
  if (answered) return [{ type: "text", text: "The command has run." }];
  // Claude Code's shell tool is `Bash`, OpenCode's `bash`; both take `{command, description}`.
  const name = tools.some((tool) => tool.name === "bash") ? "bash" : "Bash";
  return [
    { type: "text", text: "I will run the command." },
    { type: "tool_use", id: `toolu_mock_${serial}`, name, input: { command: COMMAND, description: "Create a file" } },
  ];
};

const messages = (body: Json, response: ServerResponse, serial: number): void => {
  const blocks = messagesTurn(body, serial);
  const model = String(body.model ?? "claude-mock");
  const id = `msg_mock_${serial}`;
  const stopReason = blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  const usage = { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  if (body.stream !== true) {
    sendJson(response, 200, { id, type: "message", role: "assistant", model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage: { ...usage, output_tokens: 20 } });
    return;
  }
  const send = openStream(response);
  send("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } });
  send("ping", {});
  if (blocks.length === 1 && blocks[0]?.type === "text" && blocks[0].text === SLOW_ANSWER) {
    void slowText(send, response);
    return;
  }
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of pieces(block.text, 12)) send("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      for (const partial_json of pieces(JSON.stringify(block.input), 20)) send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
  send("message_stop", {});
  response.end();
};

/** The slow answer, a word every 100 ms, until it is said or the client hangs up. */
const slowText = async (send: (type: string, data: Json) => void, response: ServerResponse): Promise<void> => {
  send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  for (const word of SLOW_ANSWER.split(" ")) {
    if (response.destroyed || response.writableEnded) return;
    send("content_block_delta", { index: 0, delta: { type: "text_delta", text: `${word} ` } });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  send("content_block_stop", { index: 0 });
  send("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 100 } });
  send("message_stop", {});
  response.end();
};

// ---- Gemini API (Gemini CLI) ----

/**
 * The user contents that are prompts: text besides the CLI's `<session_context>` preamble (a
 * tool's result comes back as a user content too, with a `functionResponse` part and no text).
 */
const isPrompt = (content: Json): boolean =>
  content.role === "user" &&
  array(content.parts).some((part) => typeof part.text === "string" && !part.text.trimStart().startsWith("<session_context>"));

const geminiParts = (body: Json): Array<Json> => {
  if (array(body.tools).length === 0) {
    const config = (body.generationConfig ?? {}) as Json;
    const json = config.responseJsonSchema !== undefined || config.responseSchema !== undefined || config.responseMimeType === "application/json";
    // The CLI's side queries: a JSON object carrying what its routing and next-speaker checks read.
    const answer = json ? JSON.stringify({ reasoning: "mock", model_choice: "flash", next_speaker: "user", complexity_reasoning: "mock", complexity_score: 10 }) : "Mock side answer";
    return [{ text: answer }];
  }
  const contents = array(body.contents);
  let lastPrompt = -1;
  contents.forEach((content, index) => {
    if (isPrompt(content)) lastPrompt = index;
  });
  const answered = contents.slice(lastPrompt + 1).some((content) => content.role === "model");
  if (answered) return [{ text: "The command has run." }];
  return [{ functionCall: { name: "run_shell_command", args: { command: COMMAND, description: "Create a file" } } }];
};

/** `models/<model>:<method>`: SSE chunks (one part each) for `streamGenerateContent`, one JSON for `generateContent`. */
const gemini = (path: string, body: Json, response: ServerResponse, serial: number): void => {
  const [modelPath = "", method = ""] = path.split(":");
  const model = modelPath.split("/models/")[1] ?? "gemini-mock";
  if (method === "countTokens") {
    sendJson(response, 200, { totalTokens: 100 });
    return;
  }
  const parts = geminiParts(body);
  const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 };
  const envelope = { usageMetadata, modelVersion: model, responseId: `mockresp_${serial}` };
  if (method !== "streamGenerateContent") {
    sendJson(response, 200, { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], ...envelope });
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
  const pieced = parts.flatMap((part) => (typeof part.text === "string" ? pieces(part.text, 12).map((text) => ({ text })) : [part]));
  pieced.forEach((part, index) => {
    const candidate = { content: { role: "model", parts: [part] }, index: 0, ...(index === pieced.length - 1 ? { finishReason: "STOP" } : {}) };
    response.write(`data: ${JSON.stringify({ candidates: [candidate], ...envelope })}\r\n\r\n`);
  });
  response.end();
};

const MODELS = {
  object: "list",
  data: [
    { type: "model", id: "claude-sonnet-4-6", display_name: "Claude Sonnet 4.6 (mock)", created_at: "2025-01-01T00:00:00Z", object: "model", owned_by: "mock" },
    { type: "model", id: "mock-model", display_name: "Mock Model", created_at: "2025-01-01T00:00:00Z", object: "model", owned_by: "mock" },
  ],
  has_more: false,
  first_id: null,
  last_id: null,
};

/** Starts the server on 127.0.0.1 at a port the system picks. */
export const startMockModel = async (): Promise<MockModel> => {
  const requests: Array<Request> = [];
  let serial = 0;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const method = request.method ?? "GET";
    serial += 1;
    const current = serial;
    void readBody(request)
      .then((body) => {
        if (/^https?:/.test(request.url ?? "")) {
          requests.push({ method, path: request.url ?? "", api: "proxy" });
          sendJson(response, 403, { error: { message: "mock: no other host" } });
        } else if (method === "POST" && path.endsWith("/responses")) {
          requests.push({ method, path, api: "responses" });
          responses(body, response, current);
        } else if (method === "POST" && path.endsWith("/messages")) {
          requests.push({ method, path, api: "messages" });
          messages(body, response, current);
        } else if (method === "POST" && path.includes("/models/") && path.includes(":")) {
          requests.push({ method, path, api: "gemini" });
          gemini(path, body, response, current);
        } else {
          requests.push({ method, path, api: "other" });
          if (path.endsWith("/count_tokens")) sendJson(response, 200, { input_tokens: 100 });
          else if (path.includes("/models")) sendJson(response, 200, MODELS);
          else sendJson(response, method === "HEAD" ? 200 : 404, { error: { message: `mock: no ${method} ${path}` } });
        }
      })
      .catch((error: unknown) => sendJson(response, 500, { error: { message: String(error) } }));
  });
  // A proxied `https://` request opens a tunnel first: refused, with the host it named.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    requests.push({ method: "CONNECT", path: request.url ?? "", api: "proxy" });
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
