"""The commit message: a subject and body from the response's prose, and the trailers.

- ``message``: subject, body and trailers of one commit;
- ``explanation``: the prose read as a small subset of Markdown; ``chatter``: the chat
  around a change that stays out of the message; ``narration``: the model telling its
  own work, as phrases; ``thinking``: its exploration, retracted attempts and paths
  outside the repository, kept out; ``changes``: a subject made from the change;
- ``trailers``: the ``AI-*`` trailers and the one reader of a message's trailer block.

Other stages import ``message`` and ``trailers``; nothing is imported here.
"""

OPEN_MODULES = ("message", "trailers")
