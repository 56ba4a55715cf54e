"""An instruction's metadata resolves to the user's Python lines: through the module's
FileNames / FunctionNames / FileLocations / StackFrames tables (stack_frame_id, parents
followed), or from source_file / source_line. The JAX fixtures were made by
tests/fixtures/hlo/generate.py, whose lines marked `# @name` are where each op was written."""
from __future__ import annotations

import pytest

from shlo_lint.checker.frontend.hlo import Metadata, read_hlo
from shlo_lint.checker.frontend.hlo.frames import FileLocation, PythonFrame, StackFrame, StackFrameTables, frames_of
from shlo_lint.checker.source.text import Span

from hlo_helpers import HLO, by_opcode, module

GENERATE = (HLO / "generate.py").read_text(encoding="utf-8").splitlines()


def line_of(marker: str) -> int:
    (n,) = [i for i, text in enumerate(GENERATE, 1) if text.rstrip().endswith(marker)]
    return n


def line_with(code: str) -> int:
    (n,) = [i for i, text in enumerate(GENERATE, 1) if code in text]
    return n


@pytest.mark.parametrize("fixture,opcode,marker", [
    ("collectives.after.hlo", "all-reduce", "# @psum"),
    ("collectives.after.hlo", "collective-permute", "# @ppermute"),
    ("collectives.after.hlo", "all-gather", "# @all_gather"),
    ("collectives.after.hlo", "all-to-all", "# @all_to_all"),
    ("collectives.after.hlo", "reduce-scatter", "# @psum_scatter"),
    ("control.after.hlo", "collective-permute", "# @loop_ppermute"),
])
def test_collective_resolves_to_its_python_line(fixture, opcode, marker):
    m = module(fixture)
    (ins,) = by_opcode(m, opcode)
    frames = ins.python_frames()
    assert frames[0].file.endswith("tests/fixtures/hlo/generate.py")
    assert frames[0].line == line_of(marker)


def test_branch_collectives_resolve_to_their_lines():
    m = module("control.after.hlo")
    lines = {ins.metadata.op_name.rsplit("/", 1)[-1]: ins.python_frames()[0].line
             for ins in by_opcode(m, "all-reduce")}
    assert lines == {"psum": line_of("# @cond_psum"), "pmax": line_of("# @switch_pmax")}


def test_the_call_stack_and_columns():
    m = module("tp_mlp.after.hlo")
    up = [i for i in m.instructions() if i.opcode == "dot" and i.python_frames()
          and i.python_frames()[0].line == line_of("# @mlp_up")]
    assert up
    frames = up[0].python_frames()
    assert [f.function for f in frames] == ["mlp_program.<locals>.mlp", "write_compiled", "main", "<module>"]
    assert [f.line for f in frames] == [line_of("# @mlp_up"), line_with("lowered = f.lower(*args)"),
                                        line_with("    write_compiled()"), line_with("    main()")]
    code = GENERATE[frames[0].line - 1]
    assert frames[0].column == code.index("x @ w1")  # JAX records Python's 0-based column offset


def test_source_file_and_line_written_directly():
    text = ('HloModule m\n\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1), '
            'metadata={op_type="add" op_name="f/add" source_file="/src/model.py" source_line=42 source_column=7}\n}\n')
    m = read_hlo(text)
    assert m.entry.root.python_frames() == (PythonFrame("/src/model.py", 42, 7),)
    assert m.tables is None


def tables(*parents: int) -> StackFrameTables:
    """Frames i+1 at line 10*(i+1) of f.py, with the given printed parent ids."""
    locs = tuple(FileLocation(1, 1, 10 * (i + 1), 10 * (i + 1), 0, 0) for i in range(len(parents)))
    frames = tuple(StackFrame(i + 1, p - 1) for i, p in enumerate(parents))
    return StackFrameTables(("f.py",), ("fn",), locs, frames, Span(0, 0))


def test_parents_are_printed_one_higher():
    t = tables(1, 2, 3)  # frame 1: no parent; frame 2: frame 1; frame 3: frame 2
    assert [f.line for f in t.frames(3)] == [30, 20, 10]
    assert [f.line for f in t.frames(1)] == [10]


def test_bad_tables_do_not_loop_or_fail():
    assert [f.line for f in tables(2).frames(1)] == [10]  # frame 1 its own parent: stop
    assert tables(1).frames(7) == ()
    md = Metadata(stack_frame_id=9, source_file="g.py", source_line=3)
    assert frames_of(md, tables(1)) == (PythonFrame("g.py", 3),)  # out of range: the direct position
    assert frames_of(Metadata(op_name="x"), tables(1)) == () and frames_of(None, None) == ()


def test_tables_read_from_text():
    m = module("tp_mlp.after.hlo")
    t = m.tables
    assert t.file_names[0].endswith("generate.py")
    assert "mlp_program.<locals>.mlp" in t.function_names
    assert all(1 <= f.file_location_id <= len(t.file_locations) for f in t.stack_frames)
    assert m.snippet(t.span).startswith("FileNames") and m.snippet(t.span).rstrip().endswith("}")
