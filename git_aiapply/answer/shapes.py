"""Coding agents' edit tools as data (BEHAVIOR.md §1, round 4; issue 32).

One ``Shape`` per agent tool, taken from the agent's own source (docs/DECISIONS.md
"Agent tool shapes" names the versions read): its names, which argument keys carry the
path, the old and new text, the whole content, a line, a count flag, and the agent's
rules (how many occurrences an old text must have, where an insert goes, what a line
number hints).  ``agent_tools.shape_ops`` turns a call into operations by its shape
alone, so adding an agent is a table entry and its test cases.

A tool is found by its name as called, or without the harness's prefix
(``developer__text_editor``, ``mcp__server__Edit``, ``functions.apply_patch``); several
agents share a name (``write_to_file``, ``edit_file``, ``edit``), so the entry whose
``requires`` keys the arguments carry is taken, in table order.  A tool that names a path
and is neither here nor in ``READ_ONLY`` refuses the whole answer (``toolcalls.call_ops``):
an edit the model believes it made is never dropped while the rest lands.

Whatever an agent does on failure (apply what fits, skip a block, fuzzy matching), every
shape here is exact and all or nothing.
"""
from __future__ import annotations

from ..record import record

# kinds of shape (what agent_tools.shape_ops does with a call)
REPLACE = "replace"  # old text -> new text, by the count rule
WRITE = "write"  # the whole content of the file
INSERT = "insert"  # lines at a line, by the insert rule
BLOCKS = "blocks"  # SEARCH/REPLACE blocks in one text (Cline, Roo, Kilo)
PATCH = "patch"  # apply-patch text (*** Begin Patch)
UNIFIED = "unified"  # a unified diff (Goose's text_editor diff)
DELETE = "delete"  # remove the file(s)
MOVE = "move"  # a source and a destination
READ = "read"  # changes nothing (a view command)
LAZY = "lazy"  # a snippet of the file with placeholders, merged into it (plan/lazy_merge.py)
LINES = "lines"  # lines N to M replaced by the text, as the file is then (SWE-agent's edit)

# insert rules: where line N puts the text
AFTER = "after"  # after line N, 0 = the top (Anthropic, OpenHands, Augment)
AFTER_OR_END = "after, -1 = the end"  # Goose's text_editor
BEFORE = "before"  # before line N, N = count + 1 appends (Cline's SDK editor)
BEFORE_OR_END = "before, 0 = the end"  # Roo's and Kilo's insert_content


@record(frozen=True)
class Shape:
    """One agent tool's shape: which arguments mean what, and the agent's rules."""

    agent: str
    names: tuple  # the tool's names as called (without a harness prefix)
    kind: str  # REPLACE, WRITE, INSERT, BLOCKS, PATCH, UNIFIED, DELETE, MOVE, READ
    path: tuple = ()  # keys that may carry the path, in order
    old: str | None = None  # the old text's key
    new: str | None = None  # the new text's key (REPLACE, INSERT)
    content: str | None = None  # the whole content's key (WRITE), the text's (BLOCKS, PATCH)
    edits: str | None = None  # a list of edits, each an object with the old/new keys
    # count rule: exactly one, unless ``every`` (its flag true: every one, at least one)
    # or ``expected`` (a number of occurrences, default 1); ``all_always``: every one
    every: str | None = None
    expected: str | None = None
    all_always: bool = False
    line: str | None = None  # the insert line's key (INSERT), the first line's (LINES)
    end: str | None = None  # the last line's key (LINES)
    insert: str = AFTER  # the insert rule
    hint: str | None = None  # a line the old text starts on: breaks ties
    when: tuple = ()  # (key, value): the call's command picks this entry
    requires: tuple = ()  # keys the arguments must carry for this entry
    empty_old_creates: bool = False  # an empty old text creates the file (or fills an empty one)
    fold_quotes: bool = False  # straight quotes in the old text find typographic ones
    numbered: bool = False  # old_str_1, new_str_1, old_str_2... (Augment)
    destination: str | None = None  # the destination's key (MOVE)
    per_edit_path: bool = False  # each edit names its own file (Copilot's multi_replace)
    files: str | None = None  # a list of files, each with its path and its ``edits`` list
    replaces_file: bool = True  # WRITE over an existing file (False: creates only, Cline's editor)
    dry_run: str | None = None  # a flag that makes the call change nothing (MCP's dryRun)
    # paths begin with the project folder's name (Zed: 'myproject/src/a.rs'), dropped
    # where the repository says so (agent_tools.project_path)
    project_folder: bool = False


# Every agent's edit tools.  Where two agents share a name, the entry with the more
# specific ``requires`` comes first.
SHAPES: tuple = (
    # SWE-agent's windowed editor with function calling (tools/windowed_edit_linting):
    # edit {start_line, end_line, replacement_text} of the file the last open named
    # (toolcalls.parse_with_tools gives it as "path", answer/agent_tools.opened_files)
    Shape("SWE-agent", ("edit",), LINES, ("path",), new="replacement_text", line="start_line",
          end="end_line", requires=("start_line",)),
    # Claude Code (Edit / MultiEdit / Write; its tool definitions as the CLI sends them)
    Shape("Claude Code", ("Edit",), REPLACE, ("file_path", "path"), "old_string", "new_string",
          every="replace_all", empty_old_creates=True, fold_quotes=True),
    Shape("Claude Code", ("MultiEdit",), REPLACE, ("file_path", "path"), "old_string",
          "new_string", edits="edits", every="replace_all", empty_old_creates=True,
          fold_quotes=True),
    Shape("Claude Code", ("Write",), WRITE, ("file_path", "path"), content="content"),
    # Gemini CLI (packages/core/src/tools/edit.ts, smart-edit.ts, write-file.ts)
    Shape("Gemini CLI", ("replace",), REPLACE, ("file_path", "path"), "old_string", "new_string",
          every="allow_multiple", requires=("allow_multiple",), empty_old_creates=True),
    Shape("Gemini CLI", ("replace",), REPLACE, ("file_path", "path"), "old_string", "new_string",
          expected="expected_replacements", empty_old_creates=True),
    # Cline (its text tools and native tools; the SDK's editor)
    Shape("Cline", ("replace_in_file",), BLOCKS, ("path", "file_path"), content="diff"),
    Shape("Cline", ("editor",), INSERT, ("path",), new="new_text", line="insert_line",
          insert=BEFORE, requires=("insert_line",)),
    Shape("Cline", ("editor",), REPLACE, ("path",), "old_text", "new_text",
          requires=("old_text",)),
    Shape("Cline", ("editor",), WRITE, ("path",), content="new_text", replaces_file=False),
    # Roo Code and Kilo Code (src/core/prompts/tools/native-tools/*.ts, their XML tools)
    # multi-file apply_diff (Roo's and Kilo's MultiFileSearchReplace): files, each a path
    # and diffs, each a content of blocks and a start_line that stands for every block's
    # :start_line: (their text form <args><file>... is read as this call)
    Shape("Roo Code", ("apply_diff",), BLOCKS, ("path",), content="content", edits="diffs",
          files="files", hint="start_line", requires=("files",)),
    Shape("Roo Code", ("apply_diff",), BLOCKS, ("path",), content="diff", requires=("diff",)),
    Shape("Roo Code", ("insert_content",), INSERT, ("path",), new="content", line="line",
          insert=BEFORE_OR_END),
    Shape("Roo Code", ("search_and_replace",), REPLACE, ("path",), "search", "replace",
          all_always=True, requires=("search",)),
    Shape("Roo Code", ("search_and_replace",), REPLACE, ("path",), "search", "replace",
          edits="operations", all_always=True, requires=("operations",)),
    Shape("Roo Code", ("edit_file",), REPLACE, ("file_path",), "old_string", "new_string",
          expected="expected_replacements", requires=("old_string",)),
    Shape("Roo Code", ("edit",), REPLACE, ("file_path",), "old_string", "new_string",
          every="replace_all", requires=("old_string",)),
    # Cursor's search_replace (replace_all optional), Roo's (exactly one)
    Shape("Cursor", ("search_replace",), REPLACE, ("file_path", "path"), "old_string",
          "new_string", every="replace_all"),
    # Windsurf (Cascade's tools)
    Shape("Windsurf", ("write_to_file",), WRITE, ("TargetFile",), content="CodeContent",
          requires=("TargetFile",)),
    Shape("Windsurf", ("replace_file_content", "multi_replace_file_content"), REPLACE,
          ("TargetFile",), "TargetContent", "ReplacementContent", edits="ReplacementChunks",
          every="AllowMultiple"),
    Shape("Cline", ("write_to_file",), WRITE, ("path", "file_path"), content="content"),
    # OpenCode (packages/opencode/src/tool/edit.ts, write.ts, multiedit.ts, patch)
    Shape("OpenCode", ("edit",), REPLACE, ("filePath",), "oldString", "newString",
          every="replaceAll", requires=("oldString",), empty_old_creates=True),
    Shape("OpenCode", ("multiedit",), REPLACE, ("filePath",), "oldString", "newString",
          edits="edits", every="replaceAll", empty_old_creates=True),
    Shape("OpenCode", ("write",), WRITE, ("filePath",), content="content",
          requires=("filePath",)),
    Shape("Cursor", ("write",), WRITE, ("file_path",), content="contents",
          requires=("contents",)),
    Shape("OpenCode", ("patch",), PATCH, content="patchText"),
    # GitHub Copilot (src/extension/tools/node/*.tsx)
    Shape("Copilot", ("replace_string_in_file", "copilot_replaceString"), REPLACE,
          ("filePath",), "oldString", "newString"),
    Shape("Copilot", ("multi_replace_string_in_file", "copilot_multiReplaceString"), REPLACE,
          ("filePath",), "oldString", "newString", edits="replacements", per_edit_path=True),
    Shape("Copilot", ("create_file", "copilot_createFile"), WRITE, ("filePath",),
          content="content", requires=("filePath",)),
    # Amp (edit_file, create_file)
    Shape("Amp", ("edit_file",), REPLACE, ("path",), "old_str", "new_str", every="replace_all",
          requires=("old_str",)),
    Shape("Amp", ("create_file",), WRITE, ("path",), content="content"),
    # the MCP filesystem server (edit_file with edits of oldText/newText; write_file)
    Shape("MCP filesystem", ("edit_file",), REPLACE, ("path",), "oldText", "newText",
          edits="edits", requires=("edits",), dry_run="dryRun"),
    Shape("Gemini CLI", ("write_file",), WRITE, ("file_path", "path"), content="content"),
    Shape("MCP filesystem", ("move_file",), MOVE, ("source",), destination="destination"),
    # Goose (its developer extension: text_editor; edit and write)
    Shape("Goose", ("text_editor",), REPLACE, ("path",), "old_str", "new_str",
          when=("command", "str_replace")),
    Shape("Goose", ("text_editor",), WRITE, ("path",), content="file_text",
          when=("command", "write")),
    Shape("Goose", ("text_editor",), INSERT, ("path",), new="new_str", line="insert_line",
          insert=AFTER_OR_END, when=("command", "insert")),
    Shape("Goose", ("text_editor",), UNIFIED, ("path",), content="diff", when=("command", "diff")),
    Shape("Goose", ("text_editor",), READ, ("path",), when=("command", "view")),
    Shape("Goose", ("edit",), REPLACE, ("path",), "before", "after", requires=("before",)),
    Shape("Goose", ("write",), WRITE, ("path",), content="content", requires=("content",)),
    # Continue (core/tools/definitions/*.ts)
    Shape("Continue", ("single_find_and_replace",), REPLACE, ("filepath",), "old_string",
          "new_string", every="replace_all"),
    Shape("Continue", ("multi_edit",), REPLACE, ("filepath",), "old_string", "new_string",
          edits="edits", every="replace_all", empty_old_creates=True),
    Shape("Continue", ("create_new_file",), WRITE, ("filepath",), content="contents"),
    # Zed (crates/agent/src/tools: streaming_edit_file, move_path, delete_path)
    Shape("Zed", ("streaming_edit_file",), WRITE, ("path",), content="content",
          when=("mode", "write"), project_folder=True),
    Shape("Zed", ("streaming_edit_file",), REPLACE, ("path",), "old_text", "new_text",
          edits="edits", hint="line", when=("mode", "edit"), project_folder=True),
    Shape("Zed", ("move_path",), MOVE, ("source_path",), destination="destination_path",
          project_folder=True),
    Shape("Zed", ("delete_path",), DELETE, ("path",), project_folder=True),
    # Cursor's delete_file, an MCP server's
    Shape("Cursor", ("delete_file",), DELETE, ("target_file", "path", "file_path")),
    # Augment (str-replace-editor with numbered edits, save-file, remove-files)
    Shape("Augment", ("str-replace-editor",), REPLACE, ("path",), "old_str", "new_str",
          hint="old_str_start_line_number", numbered=True, when=("command", "str_replace")),
    Shape("Augment", ("str-replace-editor",), INSERT, ("path",), new="new_str",
          line="insert_line", insert=AFTER, numbered=True, when=("command", "insert")),
    Shape("Augment", ("save-file",), WRITE, ("path",), content="file_content"),
    Shape("Augment", ("remove-files",), DELETE, ("file_paths",)),
    # lazy edits (BEHAVIOR.md §5): Cursor's, Kilo Code's and Morph's edit_file, Copilot's
    # insert_edit_into_file, Continue's edit_existing_file; last, so that an edit_file
    # with old and new strings (Amp, Roo, the MCP filesystem server) is theirs, and one
    # without its snippet is refused as this shape's, never dropped
    Shape("Cursor", ("edit_file",), LAZY, ("target_file", "path", "file_path"),
          content="code_edit"),
    Shape("Copilot", ("insert_edit_into_file",), LAZY, ("filePath", "file_path", "path"),
          content="code"),
    Shape("Continue", ("edit_existing_file",), LAZY, ("filepath", "filePath", "path"),
          content="changes"),
)


# Tools that change no file, per agent: a call of one is left out whatever its arguments.
READ_ONLY: dict = {
    "Claude Code": ("Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch",
                    "TodoWrite", "TodoRead", "Task", "Agent", "Bash", "BashOutput", "KillShell",
                    "KillBash", "ExitPlanMode", "SlashCommand", "Skill", "ListMcpResourcesTool",
                    "ReadMcpResourceTool"),
    "OpenHands / SWE-agent": ("view", "think", "finish", "execute_bash", "execute_ipython_cell",
                              "browser", "web_read", "task_tracker", "find_file",
                              "search_file", "search_dir", "open", "goto", "scroll_up",
                              "scroll_down", "submit"),
    "Cline": ("read_file", "read_files", "list_files", "search_files", "search_codebase",
              "list_code_definition_names", "execute_command", "run_commands",
              "ask_followup_question", "attempt_completion", "browser_action", "web_fetch",
              "web_search", "fetch_web_content", "access_mcp_resource", "load_mcp_documentation",
              "plan_mode_respond", "act_mode_respond", "focus_chain", "new_task", "condense",
              "summarize_task", "use_skill", "skills", "ask_question", "submit_and_exit"),
    "Roo Code": ("codebase_search", "fetch_instructions", "read_command_output", "switch_mode",
                 "update_todo_list", "skill", "run_slash_command"),
    "Gemini CLI": ("read_many_files", "list_directory", "glob", "search_file_content", "grep",
                   "google_web_search", "save_memory", "run_shell_command", "write_todos"),
    "Copilot": ("file_search", "grep_search", "list_dir", "semantic_search", "get_errors",
                "get_changed_files", "test_search", "read_project_structure",
                "list_code_usages", "get_search_view_results", "fetch_webpage",
                "run_in_terminal", "get_terminal_output", "view_image", "manage_todo_list",
                "runSubagent", "get_vscode_api", "test_failure", "search_workspace_symbols",
                "create_directory", "copilot_readFile", "copilot_findFiles",
                "copilot_findTextInFiles", "copilot_listDirectory", "copilot_getErrors",
                "copilot_searchCodebase", "copilot_getChangedFiles", "copilot_createDirectory"),
    "OpenCode": ("read", "list", "ls", "webfetch", "todowrite", "todoread", "task", "bash",
                 "lsp_diagnostics", "lsp_hover", "codesearch", "websearch"),
    "Windsurf": ("view_file", "view_code_item", "view_file_outline", "find_by_name",
                 "codebase_search", "read_url_content", "view_content_chunk", "run_command",
                 "command_status", "search_web", "read_deployment_config", "browser_preview",
                 "read_resource", "list_resources", "read_terminal", "trajectory_search"),
    "Cursor": ("read_lints", "todo_write", "glob_file_search", "run_terminal_cmd",
               "list_dir", "file_search", "fetch_rules", "update_memory"),
    "Amp": ("Read", "read_web_page", "get_diagnostics", "codebase_search_agent", "todo_read",
            "todo_write", "mermaid", "oracle", "list_directory", "glob", "Grep", "Bash",
            "web_search", "Task"),
    "Goose": ("shell", "list_windows", "screen_capture", "image_processor", "analyze",
              "tree", "todo__read", "todo__write"),
    "Continue": ("read_file_range", "read_currently_open_file", "ls", "file_glob_search",
                 "view_diff", "view_repo_map", "view_subdirectory", "codebase", "search_web",
                 "fetch_url_content", "run_terminal_command", "request_rule", "read_skill"),
    "Zed": ("find_path", "diagnostics", "fetch", "now", "thinking", "terminal", "open",
            "list_directory", "read_file", "grep", "create_directory", "copy_path"),
    "Augment": ("view", "codebase-retrieval", "launch-process", "read-process", "write-process",
                "kill-process", "list-processes", "web-fetch", "web-search", "diagnostics",
                "open-browser", "read-terminal"),
    "Codex": ("shell", "update_plan", "view_image", "list_dir", "grep_files", "read_file"),
    # test runners (Copilot's runTests; the run_tests of many harnesses)
    "test runners": ("runTests", "run_tests", "copilot_runTests1"),
    "MCP filesystem": ("read_text_file", "read_media_file", "read_multiple_files",
                       "list_directory_with_sizes", "directory_tree", "get_file_info",
                       "list_allowed_directories"),
}
_READ_ONLY_NAMES = frozenset(n for names in READ_ONLY.values() for n in names)
# copy_path copies a file; create_directory makes a folder git does not record: neither
# leaves a change this tool could lose (a copy is refused by toolcalls as a move is)
_READ_ONLY_NAMES = _READ_ONLY_NAMES - {"copy_path"}


# Read-only tools that run commands: a call whose arguments hold an edit (a patch inside
# a script) is refused as such, never replayed and never dropped
_RUNS_COMMANDS = frozenset({"Bash", "bash", "shell", "local_shell", "exec_command",
                            "execute_command", "run_commands", "run_shell_command",
                            "run_in_terminal", "run_terminal_cmd", "run_command",
                            "run_terminal_command", "execute_bash", "terminal",
                            "launch-process", "developer__shell"})


def runs_commands(name: str) -> bool:
    """Whether the call is of a tool that runs commands (Bash, shell...)."""
    return any(n in _RUNS_COMMANDS for n in names_of(name))


def base_name(name: str) -> str:
    """The tool's name without a harness prefix: ``developer__text_editor`` ->
    ``text_editor``, ``mcp__server__Edit`` -> ``Edit``, ``functions.Edit`` -> ``Edit``."""
    name = name.strip()
    if name.startswith("functions."):
        name = name[len("functions."):]
    if "__" in name:
        name = name.rsplit("__", 1)[-1]
    return name


def names_of(name: str) -> tuple:
    """The names a call may be known by: as called, then without its prefix."""
    base = base_name(name)
    return (name,) if base == name else (name, base)


_BY_NAME: dict = {}
for _shape in SHAPES:
    for _n in _shape.names:
        _BY_NAME.setdefault(_n, []).append(_shape)


def shapes_named(name: str) -> list:
    """Every table entry the call's name (or its base name) is."""
    for n in names_of(name):
        if n in _BY_NAME:
            return _BY_NAME[n]
    return []


def _present(args: dict, key: str) -> bool:
    return key in args and args[key] is not None


def shape_of(name: str, args: object) -> Shape | None:
    """The entry of a call: its name, its command (``when``) and the keys it carries
    (``requires``) pick it; None when the name is not in the table or no entry fits."""
    entries = shapes_named(name)
    if not entries or not isinstance(args, dict):
        return None
    for shape in entries:
        if shape.when and str(args.get(shape.when[0])) != shape.when[1]:
            continue
        if any(not _present(args, k) for k in shape.requires):
            continue
        return shape
    return None


def is_read_only(name: str) -> bool:
    """Whether the call is of a known tool that changes no file."""
    return any(n in _READ_ONLY_NAMES for n in names_of(name))
