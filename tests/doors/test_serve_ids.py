"""doors/serve.py's answers to requests that cannot run: every answer carries the
request's id and a ``fault`` (docs/JSON.md), whatever is wrong with the request."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from git_aiapply.doors.serve import LineTooLong, answer, known_fields, read_requests, serve
from git_aiapply.errors import AiApplyError, FatalError, UsageError


class _Session:
    """Stands for api.Session: raises what it is given, as the run would."""

    def __init__(self, error: Exception):
        self.error = error

    def apply_json(self, response, name=None, **options):
        raise self.error


BAD_REQUESTS = [
    {"response": "x", "chek": True},  # an unknown field
    {"response": "x", "path": "y"},  # both
    {},  # neither
    {"response": 3},
    {"path": 3},
    {"response": "x", "options": []},
    {"response": "x", "name": 5},
    {"response": "x", "options": {"name": "n"}},  # a field of the request given as an option
    {"response": "x", "options": {"response": "y", "check": True}},
    {"path": "p", "options": {"id": 3}},
]


@pytest.mark.parametrize("request_", BAD_REQUESTS)
@pytest.mark.parametrize("req_id", [7, "abc", 0, [1, 2], {"k": 1}])
def test_a_bad_request_answers_with_its_id_and_the_usage_fault(request_, req_id):
    out = answer(_Session(AssertionError("not reached")),
                 json.dumps({**request_, "id": req_id}).encode())
    assert out["id"] == req_id
    assert (out["status"], out["exit_code"], out["error_kind"], out["fault"]) == (
        "error", 2, "usage", "usage")


@pytest.mark.parametrize("error, code, kind, fault", [
    (UsageError("unknown option 'chek'"), 2, "usage", "usage"),
    (AiApplyError("no change blocks"), 1, "refused", "response"),
    (RuntimeError("a bug"), 1, "internal", "internal"),
])
def test_an_error_of_the_run_answers_with_its_id_and_fault(error, code, kind, fault):
    out = answer(_Session(error), b'{"response": "x", "id": 41}')
    assert (out["id"], out["exit_code"], out["error_kind"], out["fault"]) == (41, code, kind,
                                                                            fault)


def test_a_fatal_answer_keeps_the_id():
    out = answer(_Session(FatalError("fatal: Unable to create 'index.lock'")),
                 b'{"response": "x", "id": "f"}')
    assert out["id"] == "f" and out["exit_code"] == 128 and out["fault"] == "repository"


@given(st.dictionaries(st.text(max_size=8), st.none() | st.integers() | st.text(max_size=5),
                       max_size=4), st.integers())
def test_any_object_request_keeps_its_id(fields, req_id):
    fields["id"] = req_id
    out = answer(_Session(UsageError("refused")), json.dumps(fields).encode())
    assert out["id"] == req_id and out["fault"] is not None


@pytest.mark.parametrize("line", [b"not json", b"[1, 2]", b'"id"', b"\xff"])
def test_a_line_that_is_no_object_has_no_id_to_echo_but_a_fault(line):
    out = answer(_Session(AssertionError("not reached")), line)
    assert "id" not in out and out["fault"] == "usage" and out["exit_code"] == 2


@pytest.mark.parametrize("line", [b'{"id": 5, "response": "cut', b'{"id": 5, "response": "a\x01"}',
                                  b'{"id": 5, "response": "x", }', b'{"id":5,"response":"\xff"}'])
def test_a_line_that_is_no_json_answers_with_the_id_it_shows(line):
    out = answer(_Session(AssertionError("not reached")), line)
    assert out["id"] == 5 and out["fault"] == "usage" and "not JSON" in out["error_text"]


_VALUES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) \
    | st.text(max_size=6) | st.lists(st.integers(), max_size=2)


@given(st.dictionaries(st.text(max_size=5), _VALUES, min_size=1, max_size=4), st.booleans())
def test_what_a_cut_line_shows_is_the_request_as_far_as_it_goes(fields, spaced):
    """Property: the fields read from any start of a request line are fields of the
    request with their values, and the whole line gives them all."""
    text = json.dumps(fields, ensure_ascii=False, separators=None if spaced else (",", ":"))
    for cut in range(len(text) + 1):
        known = known_fields(text[:cut].encode())
        assert all(k in fields and fields[k] == v for k, v in known.items()), (cut, known)
    assert known_fields(text.encode()) == fields


@pytest.mark.parametrize("line, known_id", [
    ({"id": 3, "name": "big.md", "response": "x" * 5000}, 3),
    ({"response": "x" * 5000, "id": "last"}, "last"),  # the end shows it too
    ({"response": "x" * 5000, "options": {"id": 1, "check": True}}, None),  # not the request's
    ({"response": "x\", \"id\": 4}" + "x" * 5000}, None),  # inside the text
])
def test_a_line_over_the_limit_answers_with_what_its_ends_show(line, known_id):
    import io

    data = json.dumps(line).encode() + b"\n" + b'{"id": 9, "response": "y"}\n'
    got = []
    serve(_Session(UsageError("refused")), read_requests(io.BufferedReader(io.BytesIO(data)),
                                                         lambda: 1000), got.append)
    first, second = [json.loads(x) for x in got]
    assert first.get("id") == known_id and first["status"] == "refused"
    assert first.get("response") == line.get("name")
    assert second["id"] == 9
    assert LineTooLong(10, b'{"id": 1, "resp').known == {"id": 1}
