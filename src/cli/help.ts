/** The text of `moat --help`: every flag of CLI_OPTIONS, the exit codes and examples. */

/** The usage text printed by `--help`. */
export function helpText(version: string): string {
  return `moat ${version} — a coding agent whose tools can touch only what you granted

Usage:
  moat [flags] [prompt]          print mode when a prompt is given or stdin is piped
  moat [flags]                   interactive mode on a terminal
  moat sessions [--cwd DIR]      list this workspace's sessions, newest first
  moat rewind [--session ID] (--to N | --undo | --list) [--force] [--cwd DIR]
                                 files back to before turn N of a session (default: the newest);
                                 --list shows the turns, or with --to what it would change;
                                 exit 1: files someone else changed were kept (--force overwrites)
  moat mcp list [flags]          start the configured MCP servers; show state, access, tools
  moat doctor [flags]            the endpoint, its server profile and every request switch
  moat grants [-P[=NAME]] [flags] what a run would be allowed, in Deno's flags (no model)
  moat acp [flags]               an Agent Client Protocol agent on stdio, for editors (Zed, Neovim …)
  (a subcommand comes first; to send such a word as the prompt: moat -p -- sessions)

Model:
  -m, --model NAME               model name (env MOAT_MODEL)
      --base-url URL             OpenAI-compatible endpoint (env OPENAI_BASE_URL)
      --provider NAME            server family (openai, ollama, llamacpp, vllm, mistral, …);
                                 detected when not given; config "compat" overrides a switch
      --api-key-env NAME         variable holding the API key (default OPENAI_API_KEY)
      --max-turns N              run N turns (model requests with tools) and their calls,
                                 then ask for the report (default 100 in print mode,
                                 unlimited interactively)
      --max-wall-time S          stop after S seconds of wall time
      --max-tool-calls N         stop when the model wants more than N tool calls
      --max-tokens-total N       stop once the run's input plus output tokens reach N
      --max-cost AMOUNT          stop once the run costs AMOUNT (needs pricing for the
                                 model in the user config); every limit ends with a
                                 final answer without tools, then exit 3
      --context-window TOKENS    the model's context window (default: known models, the
                                 server's model information, or its overflow errors)
      --no-compaction            never compact the conversation; when it outgrows the
                                 context window the run ends with exit 6
      --system-prompt TEXT       replace the built-in system prompt
      --append-system-prompt TEXT
                                 add TEXT to the system prompt
      --no-context-files         do not load AGENTS.md files

Tools and permissions (Deno's own syntax: a list follows "=", as in --allow-write=src,tests;
a bare flag followed by a path or name is exit 2; paths relative to the workspace, ~ is HOME;
a granted path may name a new file in an existing directory (a close existing name is exit 2:
did you mean); a denied path may not exist yet; a deny list wins over every grant, -A included):
      --tools LIST               enable only these tools (read,bash,edit,write,grep,find,ls)
      --cwd DIR                  workspace directory (default: the current directory)
      --bash-timeout S           default bash timeout in seconds (default 120)
      --allow-read[=PATHS]       --deny-read=PATHS
      --allow-write[=PATHS]      --deny-write=PATHS
      --allow-run[=PROGRAMS]     --deny-run=PROGRAMS
      --allow-net[=HOSTS]        --deny-net=HOSTS (HOST or HOST:PORT)
      --allow-env[=VARS]         --ignore-env=VARS (absent from the tools' environment)
      --ignore-read=PATHS        hidden, not denied: missing to every tool and to bash
  -P, --permission-set[=NAME]    Deno's permission set NAME (bare: "default") from deno.json(c)
                                 (trusted projects only) or the user config's "permissions";
                                 a flag replaces the set's value of its kind, -A drops the set
  -A, --allow-all                grant everything (the API key still never reaches a tool)
      --sandbox auto|require|off OS sandbox (bubblewrap): require exits 2 when unavailable
      --no-prompt                never ask for approval; ungranted calls are denied
      --no-hooks                 run none of the config files' hooks in this run
      --allow-mcp[=NAMES]        let MCP tools run without asking (SERVER or SERVER__TOOL;
                                 bare: every MCP tool)
      --mcp-config FILE          more MCP servers for this run ({"mcpServers": {…}})
      --no-mcp                   start no MCP server
      --allow-unsandboxed-mcp    start stdio MCP servers even without bubblewrap (they then
                                 run with your full privileges)
      --trust-project            apply this project's sensitive settings (see Trust) for
                                 this run; to remember it, add the workspace to
                                 trustedProjects in the user config

Output and exit status:
  -p, --print                    force print mode (permission prompts become denials)
  -o, --output text|json|jsonl   print-mode output (default text); see docs/events.md
      --include-deltas           also emit text deltas (only with --output jsonl)
      --output-schema FILE       the final answer must be JSON valid against this JSON
                                 Schema; stdout gets only that JSON (exit 7 when the
                                 model cannot produce it)
      --fail-on-deny             exit 4 when any tool call was denied
      --verbose                  more detail on stderr
  -q, --quiet                    interactive mode: no usage line (tokens, cost) after answers

Sessions:
  -c, --continue                 resume the newest session of this workspace (when there
                                 is none, a new one starts with a warning)
      --resume [ID|PATH]         resume that session (ids: moat sessions), then the prompt:
                                 moat --resume ID "go on"; bare, on a terminal: pick one
                                 from a numbered list
      --session FILE             use (and append to) this session file; created, with
                                 its directory, when missing
      --no-session               do not write a session

Replay (no model needed; the tools run for real under the current grants):
      --replay FILE              play a recorded session's model replies back in print mode;
                                 a prompt replaces its first user message
      --replay-check             exit 5 when a tool result differs from the recording
                                 (after normalising paths, and times in bash output);
                                 shows the first

  -h, --help                     show this help
      --version                  show the version

Environment and files:
  OPENAI_API_KEY (or the --api-key-env variable), OPENAI_BASE_URL or MOAT_BASE_URL, MOAT_MODEL,
  MOAT_API_KEY_ENV, MOAT_MAX_TURNS, MOAT_SANDBOX; NO_COLOR disables colour. Settings also come
  from .moat/config.json and $XDG_CONFIG_HOME/moat/config.json (flags win); AGENTS.md files are
  added to the system prompt; sessions live in $XDG_STATE_HOME/moat/sessions/.

Trust (docs/security.md):
  A project's .moat/config.json may set model, maxTurns, bashTimeout, compat and the like from
  any clone. Settings that choose where requests and credentials go (baseUrl, apiKeyEnv,
  headers), start programs (mcpServers) or weaken the sandbox (sandbox other than
  "require") apply only in a trusted
  project: one whose real path is in trustedProjects of the user config, or with
  --trust-project. On a terminal moat asks once; without one it exits 2 before any request.
  Inside a write grant, .git/hooks, .git/config, the core.hooksPath directory and .moat/ stay
  read-only for every tool unless --allow-write names them (e.g. --allow-write=.,.git/hooks);
  so do other programs' run-later files at the workspace and git roots: .claude, .codex,
  .agents, .gemini, .qwen, .cursor, .opencode, opencode.json(c), .pi, .mcp.json, .vscode,
  .idea, .devcontainer, .envrc and .gitmodules (e.g. --allow-write=.,.vscode).

Exit codes: 0 completed · 1 model/provider error (or a replay ran out of replies) · 2 usage/config
error or required sandbox unavailable · 3 a limit was reached (turns, wall time, tool calls,
tokens, cost) · 4 denied tool calls with --fail-on-deny · 5 --replay-check found a difference ·
6 context exhausted (the conversation does not fit the context window even after compaction) ·
7 the answer does not match --output-schema · 130 SIGINT · 143 SIGTERM

Examples:
  moat "what does src/main.ts do?"
  moat --allow-write=src,tests --allow-run=git,deno "make the tests pass"
  git diff | moat -p "review this diff" --output json
  moat --output jsonl --fail-on-deny --no-session "update the changelog" > events.jsonl
  OPENAI_BASE_URL=http://localhost:11434/v1 moat --model qwen2.5-coder "explain this repo"
  moat -c                        continue the last conversation in this workspace
  moat --replay examples/tour.jsonl --replay-check   offline check of tools and grants
`;
}
