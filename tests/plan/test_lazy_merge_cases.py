"""A corpus of lazy edits as models write them (plan/lazy_merge.py, BEHAVIOR.md §5 "Lazy
edits"): the shapes of the deterministic mergers' fixtures (Continue's, Plandex's) and of
claude's and gpt's answers, in several languages.  Each case is a file, a snippet, and
either the exact file the merge must give or a refusal naming its placeholder.

Placeholders are found as the command finds them (``snippet_placeholders``, by the
file's grammar), and declarations by the file's grammar (``merge_snippet``)."""
from __future__ import annotations

import pytest

from conftest import merge_snippet
from git_aiapply.plan.lazy_merge import LazyRefusal


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


ROUTES_PY = """from fastapi import FastAPI

app = FastAPI()


@app.get("/")
def root():
    return {"ok": True}


@app.get("/items/{item_id}")
def read_item(item_id: int):
    return {"id": item_id}
"""

GREETER_JAVA = """public class Greeter {
    public String greet(String name) {
        return "Hi " + name;
    }

    public String bye(String name) {
        return "Bye " + name;
    }
}
"""

STACK_RS = """pub struct Stack {
    items: Vec<i32>,
}

impl Stack {
    pub fn new() -> Self {
        Stack { items: Vec::new() }
    }

    pub fn push(&mut self, x: i32) {
        self.items.push(x);
    }
}
"""

TWINS_PY = """def a():
    setup()
    run()


def b():
    setup()
    run()
"""

MORE = [
    case("py-import-line-changed-before-a-placeholder", "routes.py", ROUTES_PY,
         """from fastapi import FastAPI, HTTPException

# ... existing code ...

@app.get("/items/{item_id}")
def read_item(item_id: int):
    if item_id < 0:
        raise HTTPException(status_code=404)
    return {"id": item_id}""", want=ROUTES_PY.replace(
        "from fastapi import FastAPI\n", "from fastapi import FastAPI, HTTPException\n").replace(
        "def read_item(item_id: int):\n",
        "def read_item(item_id: int):\n    if item_id < 0:\n"
        "        raise HTTPException(status_code=404)\n")),
    case("py-block-wrapped-in-a-new-statement", "store.py", STORE_PY, """def main():
    s = Store()
    with lock:
        s.put("a", 1)""", want=STORE_PY.replace(
        '    s.put("a", 1)\n', '    with lock:\n        s.put("a", 1)\n')),
    case("py-twin-bodies-with-a-placeholder-between", "twins.py", TWINS_PY, """def a():
    # ... existing code ...
    run()
    log()
# ... existing code ...""", want=TWINS_PY.replace(
        "    run()\n\n", "    run()\n    log()\n\n", 1)),
    case("py-async-signature-changed", "client.py", """import asyncio


async def fetch(url):
    await asyncio.sleep(0)
    return url


async def main():
    print(await fetch("x"))
""", """# ... existing code ...

async def fetch(url, timeout=10):
    await asyncio.sleep(0)
    return url

# ... existing code ...""", want="""import asyncio


async def fetch(url, timeout=10):
    await asyncio.sleep(0)
    return url


async def main():
    print(await fetch("x"))
"""),
    case("java-changed-signature-may-be-an-overload", "Greeter.java", GREETER_JAVA,
         """public class Greeter {
    // ... existing code ...

    public String bye(String name, boolean loud) {
        return (loud ? "BYE " : "Bye ") + name;
    }
}""", refused="cannot be told", note=4),
    case("java-method-deleted-between-two-shown", "Greeter.java", GREETER_JAVA.replace(
        "    public String bye", "    public int n() {\n        return 1;\n    }\n\n"
        "    public String bye"), GREETER_JAVA.rstrip("\n"), want=GREETER_JAVA),
    case("rs-method-added-to-an-impl", "stack.rs", STACK_RS, """impl Stack {
    // ... existing code ...

    pub fn pop(&mut self) -> Option<i32> {
        self.items.pop()
    }
}""", want=STACK_RS.replace("        self.items.push(x);\n    }\n",
                            "        self.items.push(x);\n    }\n\n"
                            "    pub fn pop(&mut self) -> Option<i32> {\n"
                            "        self.items.pop()\n    }\n")),
    case("rs-signature-changed-by-name", "stack.rs", STACK_RS, """// ... existing code ...
    pub fn push(&mut self, x: i32) -> usize {
        self.items.push(x);
        self.items.len()
    }
}""", want=STACK_RS.replace("    pub fn push(&mut self, x: i32) {\n        self.items.push(x);\n",
                            "    pub fn push(&mut self, x: i32) -> usize {\n"
                            "        self.items.push(x);\n        self.items.len()\n")),
    case("go-line-added-inside-a-body", "server.go", SERVER_GO, """func (s *Server) Start() error {
	fmt.Println("listening on", s.addr)
	defer s.Stop()
	// ... existing code ...
}""", want=SERVER_GO.replace('\tfmt.Println("listening on", s.addr)\n',
                             '\tfmt.Println("listening on", s.addr)\n\tdefer s.Stop()\n')),
    case("ts-function-deleted-between-two-shown", "app.ts", APP_TS + """
export function version() {
  return 1;
}
""", """export async function load(dir: string) {
  const text = await readFile(join(dir, "config.json"), "utf8");
  return parse(text);
}

export function version() {
  return 1;
}""", want=APP_TS.replace("""export function name() {
  return "app";
}
""", """export function version() {
  return 1;
}
""")),
    case("tsx-jsx-placeholder-before-a-new-child", "page.tsx", PAGE_TSX, """    <div className="page">
      {/* ... existing code ... */}
      <footer>v1</footer>
    </div>""", want=PAGE_TSX.replace("      </Button>\n",
                                     "      </Button>\n      <footer>v1</footer>\n")),
    case("rb-method-changed-among-others", "user.rb", USER_RB, """class User
  # ... existing code ...

  def greet(greeting = "Hello")
    "#{greeting}, #{name}"
  end
end""", want=USER_RB.replace('  def greet\n    "Hello, #{name}"',
                             '  def greet(greeting = "Hello")\n    "#{greeting}, #{name}"')),
    case("cs-signature-changed-may-be-an-overload", "Account.cs", ACCOUNT_CS,
         """// ... existing code ...
        public void Deposit(decimal amount, string memo)
        {
            Balance += amount;
        }
// ... existing code ...""", refused="cannot be told", note=2),
    case("yaml-list-item-added", "compose.yml", COMPOSE_YML, """  web:
    image: nginx
    ports:
      - "80:80"
      - "443:443"
  # ... rest unchanged ...""", want=COMPOSE_YML.replace(
        '      - "80:80"\n', '      - "80:80"\n      - "443:443"\n')),
    case("go-a-placeholder-that-stands-for-nothing", "server.go", SERVER_GO, """func (s *Server) Stop() {
	// ... existing code ...
	fmt.Println("stopped")
	s.addr = ""
}""", refused="stands for no line", note=2),
    case("a-placeholder-where-the-lines-around-do-not-match", "store.py", STORE_PY,
         """    def get(self, key):
        # ... existing code ...
        return self.items[key]""", refused="stands for no line", note=2),
]


@pytest.mark.parametrize("path, file, snippet, want, refused, note", CASES + MORE)
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
