"""MAS back-ends (numba on the CPU, Triton under its interpreter) against a plain-Python reference: identical
text indices on thousands of random and tie-heavy score matrices, the guard for items without a path, and
shapes that do not recompile the Triton kernels."""

from __future__ import annotations

import numpy as np
import pytest
from test_align import cython_maximum_path_each

torch = pytest.importorskip("torch")

from trainer.align import AlignmentError, search_indices  # noqa: E402
from trainer.align.search import BACKEND_VARIABLE, choose_backend  # noqa: E402

MATRICES = 2500
"""Matrices per case (random scores, integer scores full of ties), searched in one launch per back-end."""


def _lengths(rng, count: int, max_x: int) -> tuple[np.ndarray, np.ndarray]:
    """(t_ys, t_xs): mostly 1 <= t_x <= t_y <= 4 t_x, with t_x == t_y, t_x == 1 and t_y == 1 each often."""
    t_xs = rng.integers(1, max_x + 1, count)
    t_ys = np.array([int(rng.integers(tx, 4 * tx + 1)) for tx in t_xs])
    kind = rng.integers(0, 6, count)
    t_ys[kind == 0] = t_xs[kind == 0]
    t_xs[kind == 1] = 1
    t_xs[kind == 2], t_ys[kind == 2] = 1, 1
    return t_ys, t_xs


def plain_indices(values: np.ndarray, t_ys: np.ndarray, t_xs: np.ndarray) -> np.ndarray:
    """Text index per frame ``[B, T_y]`` from the loop-for-loop Cython transcription, item by item (0 past the end)."""
    indices = np.zeros(values.shape[:2], np.int64)
    for b, (t_y, t_x) in enumerate(zip(t_ys, t_xs, strict=True)):
        block = values[b, :t_y, :t_x].copy()
        indices[b, :t_y] = cython_maximum_path_each(block, int(t_y), int(t_x)).argmax(1)
    return indices


@pytest.fixture(scope="module", params=["random", "with-ties"])
def case(request):
    """A batch of ``MATRICES`` small score matrices, NaN outside each item's lengths, and the reference indices."""
    rng = np.random.default_rng(18 if request.param == "random" else 19)
    t_ys, t_xs = _lengths(rng, MATRICES, 12)
    shape = (MATRICES, int(t_ys.max()), int(t_xs.max()))
    scores = rng.integers(-2, 2, shape) if request.param == "with-ties" else rng.normal(size=shape)
    values = scores.astype(np.float32)
    for b in range(MATRICES):  # a back-end that reads padding would turn NaN into a different path
        values[b, t_ys[b] :], values[b, :, t_xs[b] :] = np.nan, np.nan
    return values, t_ys, t_xs, plain_indices(values, t_ys, t_xs)


@pytest.fixture
def interpreter(monkeypatch):
    """Triton's interpreter on (kernels are built per mode at their first launch, so no earlier import matters)."""
    pytest.importorskip("triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    import triton_interpreter

    from trainer.align import triton_mas

    assert triton_mas.interpreted()
    reason = triton_interpreter.broken_reason()
    if reason:
        pytest.skip(reason)
    return triton_mas


def _tensors(values, t_ys, t_xs):
    return torch.from_numpy(values), torch.from_numpy(t_ys), torch.from_numpy(t_xs)


def test_numba_matches_the_plain_reference(case):
    """numba, through search_indices: the reference's indices on every matrix, ties included."""
    pytest.importorskip("numba")
    values, t_ys, t_xs, expected = case
    got = search_indices(*_tensors(values, t_ys, t_xs), backend="numba")
    assert got.dtype == torch.int64 and got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_numpy_reference_back_end_matches_the_plain_reference(case):
    """The vectorized NumPy back-end, through search_indices, on the same matrices."""
    values, t_ys, t_xs, expected = case
    got = search_indices(*_tensors(values, t_ys, t_xs), backend="reference")
    np.testing.assert_array_equal(got.numpy(), expected)


def test_triton_matches_the_plain_reference(case, interpreter):
    """The Triton kernels under TRITON_INTERPRET=1 (many items per program, or the interpreter takes minutes)."""
    values, t_ys, t_xs, expected = case
    got = interpreter.search_triton(*_tensors(values, t_ys, t_xs), items=2048)
    np.testing.assert_array_equal(got.numpy(), expected)


def test_triton_one_item_per_program_through_the_front_end(interpreter):
    """search_indices(backend="triton") as on the GPU (one program per item): the reference's indices, 0 past ends."""
    rng = np.random.default_rng(5)
    t_ys, t_xs = _lengths(rng, 12, 6)
    values = rng.integers(-2, 2, (12, int(t_ys.max()) + 2, 7)).astype(np.float32)
    got = search_indices(*_tensors(values, t_ys, t_xs), backend="triton")
    np.testing.assert_array_equal(got.numpy(), plain_indices(values, t_ys, t_xs))


def test_environment_variable_forces_a_back_end(monkeypatch):
    """VOICE_STUDIO_MAS picks the back-end; a name that is none raises AlignmentError; CPU scores default to numba."""
    monkeypatch.setenv(BACKEND_VARIABLE, "reference")
    assert choose_backend(torch.zeros(1, 1, 1)) == "reference"
    assert choose_backend(torch.zeros(1, 1, 1), "numba") == "numba"
    monkeypatch.setenv(BACKEND_VARIABLE, "cython")
    with pytest.raises(AlignmentError, match="cython"):
        search_indices(torch.zeros(1, 1, 1), torch.ones(1, dtype=torch.long), torch.ones(1, dtype=torch.long))
    monkeypatch.delenv(BACKEND_VARIABLE)
    pytest.importorskip("numba")
    assert choose_backend(torch.zeros(1, 1, 1)) == "numba"


@pytest.mark.parametrize("backend", ["reference", "numba", "triton"])
def test_more_phonemes_than_frames_is_a_clear_error(backend, monkeypatch):
    """An item with more text positions than frames: AlignmentError naming the item and both lengths."""
    if backend != "reference":
        pytest.importorskip(backend)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    value = torch.zeros(3, 10, 8)
    with pytest.raises(AlignmentError, match=r"item 1: 8 text positions \(phonemes\) and 5 frames"):
        search_indices(value, torch.tensor([10, 5, 9]), torch.tensor([4, 8, 2]), backend=backend)
    with pytest.raises(AlignmentError, match="item 2: 2 text positions"):  # beyond the scores' shape
        search_indices(value, torch.tensor([10, 5, 11]), torch.tensor([4, 3, 2]), backend=backend)


def _guard_batch():
    """Scores for 5 items (2 without a path, 1 with lengths past the shape) inside a NaN-filled buffer."""
    rng = np.random.default_rng(3)
    buffer = np.full((7, 11, 8), np.nan, np.float32)
    t_ys, t_xs = np.array([9, 4, 11, 12, 6]), np.array([5, 6, 3, 10, 0])
    for b, (t_y, t_x) in enumerate(zip(t_ys, t_xs, strict=True)):
        buffer[b + 1, : min(t_y, 11), : min(t_x, 8)] = rng.normal(size=(min(t_y, 11), min(t_x, 8)))
    return buffer[1:6], t_ys, t_xs  # items 1 (t_x > t_y), 3 (past T_y, T_x) and 4 (t_x = 0) are invalid


def _check_guarded(got: np.ndarray, values, t_ys, t_xs) -> None:
    for b in (1, 3, 4):
        assert (got[b] == -1).all()
    for b in (0, 2):
        np.testing.assert_array_equal(got[b], plain_indices(values[b : b + 1], t_ys[b : b + 1], t_xs[b : b + 1])[0])


def test_kernels_skip_items_without_a_path():
    """numba's kernel, called past the front end's check: -1 in every frame of an invalid item, others intact."""
    pytest.importorskip("numba")
    from trainer.align.numba_mas import search_numba

    values, t_ys, t_xs = _guard_batch()
    _check_guarded(search_numba(np.ascontiguousarray(values), t_ys, t_xs), values, t_ys, t_xs)


def test_triton_kernels_skip_items_without_a_path(interpreter):
    """The Triton kernels with invalid items (as on CUDA, where nothing is checked on the host): -1 marker rows."""
    values, t_ys, t_xs = _guard_batch()
    for items in (1, 8):
        got = interpreter.search_triton(torch.from_numpy(values), torch.from_numpy(t_ys), torch.from_numpy(t_xs), items)
        _check_guarded(got.numpy(), values, t_ys, t_xs)


def _specializations(triton_mas, shape, *, options: bool) -> list:
    """For both kernels at ``shape`` [B, T_y, T_x]: (kernel, specialization, launch options), as Triton's launcher
    derives them from the arguments (its compile-cache key is the last two)."""
    from triton.runtime.jit import JITFunction, create_function_from_signature

    _, forward, backtrack, constants = triton_mas.launch_arguments(
        torch.zeros(shape), torch.full((shape[0],), shape[1]), torch.full((shape[0],), shape[2])
    )
    found = []
    for fn, chosen, args in ((triton_mas._forward, triton_mas.FORWARD_OPTIONS, forward),
                             (triton_mas._backtrack, triton_mas.BACKTRACK_OPTIONS, backtrack)):  # fmt: skip
        jit = JITFunction(fn, **(chosen if options else {}))
        binder = create_function_from_signature(jit.signature, jit.params, _cuda_backend())
        _, specialization, launch_options = binder(*args, **constants)
        found.append((jit, specialization, launch_options))
    return found


def _cuda_backend():
    try:
        from triton.backends.nvidia.compiler import CUDABackend
    except ImportError:
        from triton.backends.compiler import BaseBackend

        return BaseBackend
    return CUDABackend


def _cache_keys(triton_mas, shape, *, options: bool) -> list:
    return [(tuple(spec), str(opts)) for _, spec, opts in _specializations(triton_mas, shape, options=options)]


def test_triton_batch_shapes_do_not_recompile():
    """Two batch shapes with the same BLOCK_X give the same compile-cache keys (a third BLOCK_X does not; nor
    would the two shapes without the kernels' do_not_specialize options)."""
    pytest.importorskip("triton")
    from trainer.align import triton_mas

    one, other = (1, 48, 32), (3, 37, 21)
    assert _cache_keys(triton_mas, one, options=True) == _cache_keys(triton_mas, other, options=True)
    assert _cache_keys(triton_mas, one, options=True) != _cache_keys(triton_mas, (3, 37, 40), options=True)
    assert _cache_keys(triton_mas, one, options=False) != _cache_keys(triton_mas, other, options=False)


@pytest.mark.parametrize("capability", [86, 90], ids=["sm_86", "sm_90"])
def test_triton_kernels_compile_for_cuda_without_a_gpu(capability, tmp_path, monkeypatch):
    """The kernels as the GPU runs them (one item per program, BLOCK_X 512) compile to CUDA binaries; the
    interpreter does not check that."""
    triton = pytest.importorskip("triton")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile now, and leave no cache behind
    pytest.importorskip("triton.backends.nvidia.compiler")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from trainer.align import triton_mas

    for jit, specialization, launch_options in _specializations(triton_mas, (2, 1600, 400), options=True):
        signature = {param.name: spec[0] for param, spec in zip(jit.params, specialization, strict=True)}
        constants = {(i,): spec[1] for i, spec in enumerate(specialization) if spec[0] == "constexpr"}
        source = ASTSource(jit, signature, constants)
        compiled = triton.compile(source, target=GPUTarget("cuda", capability, 32), options=launch_options)
        assert compiled.asm["cubin"] and compiled.metadata.num_warps == launch_options["num_warps"]


@pytest.mark.parametrize("backend", ["reference", "numba", "triton"])
def test_lengths_of_the_wrong_shape_or_type_are_refused(backend, monkeypatch):
    """One integer length per batch item, or a clear error (never a read past the lengths); an empty batch is
    an empty answer from every back-end."""
    pytest.importorskip(backend) if backend != "reference" else None
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    value = torch.zeros(4, 50, 20)
    full = torch.full((4,), 50), torch.full((4,), 20)
    for y, x in ((torch.tensor([50]), full[1]), (full[0], torch.full((6,), 20)), (full[0][:, None], full[1][:, None])):
        with pytest.raises(AlignmentError, match=r"must be integers of shape \[4\]"):
            search_indices(value, y, x, backend=backend)
    with pytest.raises(AlignmentError, match="x_lengths must be integers"):
        search_indices(value, full[0], full[1].float(), backend=backend)
    empty = search_indices(torch.zeros(0, 0, 0), torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long))
    assert empty.shape == (0, 0) and empty.dtype == torch.int64


def test_an_unknown_back_end_from_the_environment_names_the_variable(monkeypatch):
    """VOICE_STUDIO_MAS=bogus says where 'bogus' came from."""
    monkeypatch.setenv(BACKEND_VARIABLE, "bogus")
    with pytest.raises(AlignmentError, match=f"'bogus' \\(from the environment variable {BACKEND_VARIABLE}\\)"):
        search_indices(torch.zeros(1, 2, 2), torch.tensor([2]), torch.tensor([2]))
