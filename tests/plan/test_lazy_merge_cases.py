"""A corpus of lazy edits as models write them (plan/lazy_merge.py, BEHAVIOR.md §5 "Lazy
edits"): the shapes of the deterministic mergers' fixtures (Continue's, Plandex's) and of
claude's and gpt's answers, in several languages.  Each case is a file, a snippet, and
either the exact file the merge must give or a refusal naming its placeholder.

Placeholders are found as the command finds them (``snippet_placeholders``, by the
file's grammar), and declarations by the file's grammar (``merge_snippet``)."""
from __future__ import annotations

import pytest

from git_aiapply.plan.lazy_merge import LazyRefusal, merge_snippet


def case(name, path, file, snippet, want=None, refused=None, note=None):
    return pytest.param(path, file, snippet, want, refused, note, id=name)


STORE_PY = '''import os


class Store:
    def __init__(self):
        self.items = {}

    def get(self, key):
        return self.items[key]

    def put(self, key, value):
        self.items[key] = value


def main():
    s = Store()
    s.put("a", 1)
'''

CALC_JS = '''class Calculator {
  constructor() {
    this.total = 0;
  }

  add(n) {
    this.total += n;
    return this;
  }

  divide(n) {
    this.total /= n;
    return this;
  }

  result() {
    return this.total;
  }
}
'''

SERVER_GO = '''package server

import (
	"fmt"
	"net/http"
)

type Server struct {
	addr string
}

func New(addr string) *Server {
	return &Server{addr: addr}
}

func (s *Server) Start() error {
	fmt.Println("listening on", s.addr)
	return http.ListenAndServe(s.addr, nil)
}

func (s *Server) Stop() {
	fmt.Println("stopped")
}
'''

CALC_RS = '''use std::io;

fn main() {
    loop {
        let op = read_input();
        if op == "q" {
            break;
        }
        let result = match op.as_str() {
            "+" => 1.0 + 2.0,
            "-" => 1.0 - 2.0,
            _ => {
                println!("unknown");
                continue;
            }
        };
        println!("{}", result);
    }
}

fn read_input() -> String {
    let mut input = String::new();
    io::stdin().read_line(&mut input).unwrap();
    input.trim().to_string()
}
'''

REPO_JAVA = '''package app;

import java.util.ArrayList;
import java.util.List;

public class Repo {
    private final List<String> items = new ArrayList<>();

    public void add(String item) {
        items.add(item);
    }

    public String get(int i) {
        return items.get(i);
    }
}
'''

USER_RB = '''class User
  attr_reader :name

  def initialize(name)
    @name = name
  end

  def greet
    "Hello, #{name}"
  end
end
'''

ACCOUNT_CS = '''using System;

namespace Bank
{
    public class Account
    {
        public decimal Balance { get; private set; }

        public void Deposit(decimal amount)
        {
            Balance += amount;
        }

        public void Withdraw(decimal amount)
        {
            Balance -= amount;
        }
    }
}
'''

COMPOSE_YML = '''services:
  web:
    image: nginx
    ports:
      - "80:80"
  db:
    image: postgres
    volumes:
      - data:/var/lib/postgresql
volumes:
  data:
'''

PAGE_TSX = '''import React from "react";
import { Button } from "./Button";

export function Page({ title }: { title: string }) {
  return (
    <div className="page">
      <h1>{title}</h1>

      <p>
        Welcome to the page.
      </p>

      <Button onClick={() => alert("hi")}>
        Say hi
      </Button>
    </div>
  );
}
'''

APP_TS = '''import { readFile } from "fs/promises";
import { join } from "path";
import { parse } from "./parse";

export async function load(dir: string) {
  const text = await readFile(join(dir, "config.json"), "utf8");
  return parse(text);
}

export function name() {
  return "app";
}
'''

CASES = [
    # -- Python ----------------------------------------------------------------------
    case("py-method-added-at-the-end-of-a-class", "store.py", STORE_PY, '''class Store:
    # ... existing code ...

    def put(self, key, value):
        self.items[key] = value

    def delete(self, key):
        del self.items[key]


# ... rest of the file unchanged ...''', want=STORE_PY.replace(
        "        self.items[key] = value\n",
        "        self.items[key] = value\n\n    def delete(self, key):\n"
        "        del self.items[key]\n")),
    case("py-methods-at-column-0", "store.py", STORE_PY, '''def get(self, key):
    return self.items.get(key)''', want=STORE_PY.replace(
        "return self.items[key]", "return self.items.get(key)")),
    case("py-function-changed-among-others", "store.py", STORE_PY, '''# ... existing code ...

def main():
    s = Store()
    s.put("a", 1)
    print(s.get("a"))''', want=STORE_PY + '    print(s.get("a"))\n'),
    case("py-import-added-at-the-top", "store.py", STORE_PY, '''import os
import sys

# ... rest of the file ...''', want=STORE_PY.replace("import os\n", "import os\nimport sys\n")),
    case("py-placeholders-at-both-ends", "store.py", STORE_PY, '''# ... existing code ...
    def get(self, key):
        if key not in self.items:
            raise KeyError(key)
        return self.items[key]
# ... existing code ...''', want=STORE_PY.replace(
        "    def get(self, key):\n",
        "    def get(self, key):\n        if key not in self.items:\n"
        "            raise KeyError(key)\n")),
    case("py-a-function-deleted-between-two-shown", "store.py", STORE_PY, '''class Store:
    def __init__(self):
        self.items = {}

    def put(self, key, value):
        self.items[key] = value
# ... rest unchanged ...''', want=STORE_PY.replace(
        "    def get(self, key):\n        return self.items[key]\n\n", "")),
    case("py-decorator-added", "store.py", STORE_PY, '''# ... existing code ...

    @property
    def get(self, key):
        return self.items[key]

# ... existing code ...''', want=STORE_PY.replace(
        "    def get(self, key):\n", "    @property\n    def get(self, key):\n")),
    case("py-a-new-line-at-the-end-of-a-body", "store.py", STORE_PY, '''def main():
    # ... existing code ...
    s.put("b", 2)''', want=STORE_PY + '    s.put("b", 2)\n'),
    case("py-changed-signature-anchors-by-name", "store.py", STORE_PY, '''class Store:
    # ... existing code ...

    def put(self, key, value, replace=True):
        if replace or key not in self.items:
            self.items[key] = value


# ... existing code ...''', want=STORE_PY.replace(
        "    def put(self, key, value):\n        self.items[key] = value\n",
        "    def put(self, key, value, replace=True):\n"
        "        if replace or key not in self.items:\n"
        "            self.items[key] = value\n")),
    case("py-nested-block", "store.py", '''def run(jobs):
    for job in jobs:
        if job.ready:
            job.start()
            job.wait()
        else:
            job.skip()
    return len(jobs)
''', '''def run(jobs):
    for job in jobs:
        if job.ready:
            # ... existing code ...
            job.wait()
            job.report()
        # ... existing code ...
    return len(jobs)''', want='''def run(jobs):
    for job in jobs:
        if job.ready:
            job.start()
            job.wait()
            job.report()
        else:
            job.skip()
    return len(jobs)
'''),
    case("py-no-anchor", "store.py", STORE_PY, '''def remove(self, key):
    # ... existing code ...''', refused="no line of the snippet", note=2),
    case("py-a-method-that-moves", "store.py", STORE_PY, '''class Store:
    # ... existing code ...
    def put(self, key, value):
        self.items[key] = value

    def get(self, key):
        return self.items[key]''', refused="would move|appear twice|more than one way"),
    # -- JavaScript / TypeScript / TSX ----------------------------------------------
    case("js-method-added-at-column-0", "calc.js", CALC_JS, '''// ... existing code ...

divide(n) {
  this.total /= n;
  return this;
}

power(e) {
  this.total = Math.pow(this.total, e);
  return this;
}

// ... rest of code ...''', want=CALC_JS.replace(
        "    this.total /= n;\n    return this;\n  }\n",
        "    this.total /= n;\n    return this;\n  }\n\n  power(e) {\n"
        "    this.total = Math.pow(this.total, e);\n    return this;\n  }\n")),
    case("js-method-added-in-the-class", "calc.js", CALC_JS, '''class Calculator {
  constructor() {
    this.total = 0;
  }

  // ... existing methods ...

  reset() {
    this.total = 0;
    return this;
  }
}''', want=CALC_JS.replace(
        "    return this.total;\n  }\n}\n",
        "    return this.total;\n  }\n\n  reset() {\n    this.total = 0;\n"
        "    return this;\n  }\n}\n")),
    case("ts-imports-added-with-rest-of-imports", "app.ts", APP_TS, '''import { readFile } from "fs/promises";
import { existsSync } from "fs";
// ... rest of imports ...

export async function load(dir: string) {
  if (!existsSync(dir)) throw new Error(dir);
  // ... existing code ...
}

// ... existing code ...''', want=APP_TS.replace(
        'import { join } from "path";',
        'import { existsSync } from "fs";\nimport { join } from "path";').replace(
        "export async function load(dir: string) {\n",
        "export async function load(dir: string) {\n"
        "  if (!existsSync(dir)) throw new Error(dir);\n")),
    case("ts-changed-signature-anchors-by-name", "app.ts", APP_TS, '''// ... existing code ...

export function name(prefix: string) {
  return prefix + "app";
}''', want=APP_TS.replace('export function name() {\n  return "app";',
                          'export function name(prefix: string) {\n'
                          '  return prefix + "app";')),
    case("tsx-jsx-placeholder", "page.tsx", PAGE_TSX, '''export function Page({ title }: { title: string }) {
  return (
    <div className="page">
      <h1>{title}</h1>

      <p className="lead">
        Welcome to the page.
      </p>

      {/* ... existing code ... */}
    </div>
  );
}''', want=PAGE_TSX.replace("      <p>\n", '      <p className="lead">\n')),
    # -- Go ---------------------------------------------------------------------------
    case("go-import-added-in-a-block", "server.go", SERVER_GO, '''import (
	"fmt"
	"log"
	"net/http"
)

// ... existing code ...''', want=SERVER_GO.replace('\t"fmt"\n', '\t"fmt"\n\t"log"\n')),
    case("go-method-changed-with-new-parameter", "server.go", SERVER_GO, '''// ... existing code ...

func (s *Server) Stop(reason string) {
	fmt.Println("stopped:", reason)
}''', want=SERVER_GO.replace('func (s *Server) Stop() {\n\tfmt.Println("stopped")',
                             'func (s *Server) Stop(reason string) {\n'
                             '\tfmt.Println("stopped:", reason)')),
    case("go-struct-field-added", "server.go", SERVER_GO, '''type Server struct {
	addr string
	name string
}

// ... rest of the file unchanged ...''', want=SERVER_GO.replace(
        "\taddr string\n", "\taddr string\n\tname string\n")),
    # -- Rust -------------------------------------------------------------------------
    case("rs-match-arm-added-and-the-rest-kept", "calc.rs", CALC_RS, '''fn main() {
    loop {
        let op = read_input();
        if op == "q" {
            break;
        }
        let result = match op.as_str() {
            "+" => 1.0 + 2.0,
            "-" => 1.0 - 2.0,
            "*" => 1.0 * 2.0,
            _ => {
                println!("unknown");
                continue;
            }
        };
        println!("{}", result);
    }
}

// ... existing code ...''', want=CALC_RS.replace(
        '            "-" => 1.0 - 2.0,\n',
        '            "-" => 1.0 - 2.0,\n            "*" => 1.0 * 2.0,\n')),
    # -- Java -------------------------------------------------------------------------
    case("java-method-added-before-the-closing-brace", "Repo.java", REPO_JAVA, '''public class Repo {
    // ... existing code ...

    public int size() {
        return items.size();
    }
}''', want=REPO_JAVA.replace(
        "        return items.get(i);\n    }\n",
        "        return items.get(i);\n    }\n\n    public int size() {\n"
        "        return items.size();\n    }\n")),
    case("java-import-added", "Repo.java", REPO_JAVA, '''import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
// ... rest of the class ...''', want=REPO_JAVA.replace(
        "import java.util.List;", "import java.util.Collections;\nimport java.util.List;")),
    # -- Ruby -------------------------------------------------------------------------
    case("rb-method-added", "user.rb", USER_RB, '''class User
  # ... existing code ...

  def farewell
    "Bye, #{name}"
  end
end''', want=USER_RB.replace('    "Hello, #{name}"\n  end\n',
                             '    "Hello, #{name}"\n  end\n\n  def farewell\n'
                             '    "Bye, #{name}"\n  end\n')),
    # -- C# ---------------------------------------------------------------------------
    case("cs-method-changed-in-a-namespace", "Account.cs", ACCOUNT_CS, '''// ... existing code ...
        public void Withdraw(decimal amount)
        {
            if (amount > Balance)
                throw new InvalidOperationException();
            Balance -= amount;
        }
// ... existing code ...''', want=ACCOUNT_CS.replace(
        "        {\n            Balance -= amount;",
        "        {\n            if (amount > Balance)\n"
        "                throw new InvalidOperationException();\n            Balance -= amount;")),
    # -- YAML -------------------------------------------------------------------------
    case("yaml-key-added-and-a-value-changed", "compose.yml", COMPOSE_YML, '''services:
  web:
    # ... existing config ...
    environment:
      - DEBUG=1
  db:
    image: postgres:16
    # ... existing config ...''', want=COMPOSE_YML.replace(
        '      - "80:80"\n', '      - "80:80"\n    environment:\n      - DEBUG=1\n').replace(
        "image: postgres\n", "image: postgres:16\n")),
]


@pytest.mark.parametrize("path, file, snippet, want, refused, note", CASES)
def test_lazy_edit(path, file, snippet, want, refused, note):
    file_lines = file.split("\n")[:-1]
    snippet_lines = snippet.split("\n")
    if want is not None:
        merged = merge_snippet(path, file_lines, snippet_lines)
        assert "\n".join(merged.lines) + "\n" == want
        return
    with pytest.raises(LazyRefusal) as e:
        merge_snippet(path, file_lines, snippet_lines)
    assert any(w in e.value.reason for w in refused.split("|")), e.value.reason
    if note is not None:
        assert e.value.line == note
