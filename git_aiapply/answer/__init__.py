"""The answer: what the model sent (text, chat-API JSON, saved sessions and streams, agents'
tool calls and their results) read into the text and tool-call operations the formats parse.

- ``response``: reading a response, plain text or JSON, into a ``Response``;
- ``response_json``: the JSON shapes a response may be (conversations, streams, sessions);
- ``toolcalls``: edits that arrive as tool calls; ``shapes``: every coding agent's edit
  tools as data (names, argument keys, count and insert rules) and its read-only tools;
  ``agent_tools``: a call of one of them as operations, by its shape;
- ``tool_results``: what a tool call's result says (applied, failed, rejected);
- ``mail``: `git format-patch` mails (an mbox: one response each), read as `git am` does.

Other stages import ``response`` and ``toolcalls`` (and ``response_json`` and ``mail`` for
reading inputs); the rest is this stage's own.  Nothing is imported here: import from the module.
"""

OPEN_MODULES = ("mail", "response", "response_json", "toolcalls")
