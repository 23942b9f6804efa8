"""simcuda._core.modules.linker's merge of several PTX inputs into one module, and the checks of one PTX input."""
from __future__ import annotations

import pytest

from simcuda._core.errors import DriverError
from simcuda._core.modules.linker import LinkInput, check_ptx, merge_ptx
from simcuda._core.modules.module_model import parse_ptx

H = ".version {v}\n.target sm_80\n.address_size 64\n"
FUNC = ".visible .func (.param .b32 r) f(.param .b32 x)\n{{\n ret;\n}}\n"
WEAK = ".weak .func (.param .b32 r) f(.param .b32 x)\n{{\n ret;\n}}\n"
EXTERN = ".extern .func (.param .b32 r) f\n(\n .param .b32 x\n)\n;\n"
KERNEL = ".visible .entry k{n}()\n{{\n ret;\n}}\n"


def _in(name: str, text: str) -> LinkInput:
    return LinkInput(1, name, text)


def test_a_single_input_is_kept_as_written():
    """One input: the merged text is the input's text, byte for byte (the engine's cache then hits)."""
    text = H.format(v="8.0") + "// a comment\n" + KERNEL.format(n=1)
    assert merge_ptx([_in("a", text)]) == text


def test_several_inputs_get_one_header_with_the_highest_version_and_no_satisfied_extern():
    """Two inputs: one .version (the highest), one .target, the .extern of a symbol the other defines dropped, and
    both kernels and the function kept."""
    a = H.format(v="7.8") + EXTERN + KERNEL.format(n=1)
    b = H.format(v="8.3") + FUNC.format() + KERNEL.format(n=2)
    out = merge_ptx([_in("a", a), _in("b", b)])
    assert out.count(".version") == 1 and ".version 8.3" in out and out.count(".target") == 1
    assert ".extern" not in out and out.count(".func") == 1
    assert set(parse_ptx(out)) == {"k1", "k2"}


def test_an_extern_nobody_defines_is_kept_once():
    """An .extern two inputs declare and none defines (vprintf, say) stays, declared once."""
    decl = ".extern .func (.param .b32 r) vprintf\n(\n .param .b64 a,\n .param .b64 b\n)\n;\n"
    out = merge_ptx([_in("a", H.format(v="8.0") + decl + KERNEL.format(n=1)),
                     _in("b", H.format(v="8.0") + decl + KERNEL.format(n=2))])
    assert out.count(".extern .func") == 1 and "vprintf" in out


def test_a_weak_definition_gives_way_and_two_strong_ones_are_invalid_image():
    """A .weak definition and a strong one: the strong one is kept alone; two strong ones: INVALID_IMAGE (200)."""
    out = merge_ptx([_in("w", H.format(v="8.0") + WEAK.format()), _in("s", H.format(v="8.0") + FUNC.format())])
    assert out.count(".func") == 1 and ".visible .func" in out and ".weak" not in out
    with pytest.raises(DriverError) as e:
        merge_ptx([_in("one", H.format(v="8.0") + FUNC.format()), _in("two", H.format(v="8.0") + FUNC.format())])
    assert int(e.value.code) == 200 and "'one'" in e.value.why and "'two'" in e.value.why


def test_file_lines_of_later_inputs_go_and_initialized_globals_stay_whole():
    """The .file lines of the second input are dropped; a global with a braced initializer stays one statement."""
    a = H.format(v="8.0") + '.file 1 "a.py"\n' + KERNEL.format(n=1)
    b = H.format(v="8.0") + '.file 1 "b.py"\n' + ".visible .global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
    out = merge_ptx([_in("a", a), _in("b", b)])
    assert '"a.py"' in out and '"b.py"' not in out and "table[8] = {1, 2, 3, 4, 5, 6, 7, 8};" in out


@pytest.mark.parametrize("text, code", [
    (".target sm_80\n.entry k() { ret; }\n", 218),
    (".version 8.0\n.entry k() { ret; }\n", 218),
    (".version 10.0\n.target sm_80\n.address_size 64\n", 222),
    (".version 8.0\n.target sm_80\n.address_size 64\nnot ptx;\n", 218),
])
def test_check_ptx_gives_the_jit_codes(text, code):
    """No .version or .target, or a syntax error: INVALID_PTX (218); an ISA above the driver's: 222."""
    with pytest.raises(DriverError) as e:
        check_ptx(text, "in.ptx", 13050)
    assert int(e.value.code) == code and "in.ptx" in e.value.why
