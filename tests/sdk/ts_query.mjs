// One `query()` of the TypeScript Claude Agent SDK with `pathToClaudeCodeExecutable`, for
// tests/sdk/test_sdk_typescript.py. Usage: node ts_query.mjs CONFIG_JSON, where the config is
// {sdk: file URL of the package's sdk.mjs, cli, cwd, env, prompt, allow?: bool, deny?: text,
// mcp?: bool (an in-process server "calc" with a tool "add"), systemPrompt?: the option}.
// Prints one JSON line per SDK message ({"message": ...}), then {"asked": [...]}: the
// canUseTool calls, and {"added": [...]}: the calls of "add". Exits 1 with {"error": ...} if
// the query throws.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const cfg = JSON.parse(process.argv[2]);
const sdk = await import(cfg.sdk); // the cached install, not a node_modules beside us

const asked = [];
const added = [];
const options = {
  pathToClaudeCodeExecutable: cfg.cli,
  cwd: cfg.cwd,
  env: { ...process.env, ...cfg.env },
  stderr: (data) => process.stderr.write(data),
};
if (cfg.systemPrompt !== undefined) options.systemPrompt = cfg.systemPrompt;
if (cfg.allow !== undefined) {
  options.canUseTool = async (toolName, input, ctx) => {
    asked.push({ toolName, input, toolUseID: ctx.toolUseID ?? null });
    return cfg.allow
      ? { behavior: "allow", updatedInput: input }
      : { behavior: "deny", message: cfg.deny };
  };
}
if (cfg.mcp) {
  // zod is the SDK's peer dependency, installed beside it
  const zod = createRequire(new URL(cfg.sdk)).resolve("zod");
  const { z } = await import(pathToFileURL(zod).href);
  const add = sdk.tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async (args) => {
    added.push(args);
    return { content: [{ type: "text", text: `the sum is ${args.a + args.b}` }] };
  });
  options.mcpServers = { calc: sdk.createSdkMcpServer({ name: "calc", tools: [add] }) };
  options.allowedTools = ["mcp__calc__add"];
}

try {
  for await (const message of sdk.query({ prompt: cfg.prompt, options })) {
    console.log(JSON.stringify({ message }));
  }
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.stack ?? error) }));
  process.exitCode = 1;
}
console.log(JSON.stringify({ asked }));
console.log(JSON.stringify({ added }));
