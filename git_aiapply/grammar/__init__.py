"""Grammars: a file's code read as its language's grammar reads it (tree-sitter), for the
checks that must know what a line *is*: a comment, a string literal, a definition's header,
a syntax error.

- ``languages``: which grammar a file takes (name, extension, shebang), as data; pure,
  imports nothing heavy;
- ``code_tree``: a text parsed by that grammar, and the questions the other stages ask it.
  tree-sitter and a grammar are loaded only when a response touches a file with a grammar.

Other stages import both; nothing is imported here.
"""

OPEN_MODULES = ("code_tree", "languages")
