"""Exceptions, policies, profiles, autocast, the report and devices, as Python users meet them."""
import pytest

import concord


def test_exception_hierarchy_derives_from_builtins():
    assert issubclass(concord.DtypeError, concord.Error) and issubclass(concord.DtypeError, TypeError)
    assert issubclass(concord.ShapeError, ValueError) and issubclass(concord.ShapeError, concord.Error)
    assert issubclass(concord.NotImplementedError, NotImplementedError)
    assert issubclass(concord.OutOfMemoryError, MemoryError)
    assert issubclass(concord.DeviceError, RuntimeError)
    assert issubclass(concord.UnsupportedDtypeError, concord.DtypeError)


def test_cpp_message_passes_unchanged():
    a, b = concord.ones(2, 3), concord.ones(4, 5)
    with pytest.raises(ValueError) as e:     # caught as the built-in
        concord.matmul(a, b)
    assert isinstance(e.value, concord.ShapeError)
    msg = str(e.value)
    assert msg.startswith("[matmul]") and "[2, 3]" in msg and "[4, 5]" in msg
    with pytest.raises(TypeError, match=r"^\[sub\]"):
        concord.tensor([True]) - concord.tensor([False])
    with pytest.raises(RuntimeError, match=r"^\[device\]|nosuch"):
        concord.zeros(2, device="nosuch:0")


def test_failed_op_leaves_inputs_untouched():
    a = concord.tensor([1.0, 2.0])
    with pytest.raises(concord.ShapeError):
        a + concord.ones(3)
    assert a.tolist() == [1.0, 2.0]


def test_dtype_policy_context_manager():
    assert concord.dtype_policy() == "downcast"
    x = concord.tensor([1.0, 2.0], dtype=concord.float64)
    with concord.profile("emu:0", "no-fp64"):
        y = x.to("emu:0")                    # downcast, counted
        assert y.dtype == concord.float32
        assert concord.report().count("copy", "downcast") >= 1
        with concord.dtype_policy("strict"):
            assert concord.dtype_policy() == "strict"
            with pytest.raises(concord.UnsupportedDtypeError, match="float64"):
                x.to("emu:0")
        assert concord.dtype_policy() == "downcast"
    with pytest.raises(concord.ValueError):
        concord.dtype_policy("sometimes")


def test_profile_restores_and_fallback_is_counted():
    before = concord.profile("emu:0")
    a = concord.eye(3, device="emu:0") * 2
    b = concord.ones(3, 1, device="emu:0")
    with concord.profile("emu:0", "no-op:solve"):
        assert "solve" in concord.profile("emu:0")
        x = concord.linalg.solve(a, b)          # runs on the CPU, counted
        assert concord.report().count("solve", "fallback") == 1
        with concord.fallback_policy("strict"):
            assert concord.fallback_policy() == "strict"
            with pytest.raises(concord.NotImplementedError, match=r"solve"):
                concord.linalg.solve(a, b)
    assert concord.profile("emu:0") == before
    assert str(x.device) == "emu:0" and x.tolist() == [[0.5]] * 3


def test_autocast_runs_matmul_in_float16_and_counts_it():
    a = concord.ones(4, 4)
    with concord.autocast(concord.float16):
        c = a @ a
    assert c.dtype == concord.float16
    assert concord.report().count("matmul", "autocast") == 1
    assert (a @ a).dtype == concord.float32


def test_report_has_fields_and_a_readable_str():
    concord.reset_report()
    concord.ones(3, device="emu:0") + 1
    r = concord.report()
    ops = {(e.op, e.device, e.path) for e in r.entries}
    assert ("add", "emu:0", "native") in ops
    assert all(isinstance(e.count, int) and e.count > 0 for e in r.entries)
    text = str(r)
    assert "add" in text and "emu:0" in text
    assert '"add"' in r.json() or "add" in r.json()


def test_devices_list_capabilities():
    devs = concord.devices()
    names = [d["name"] for d in devs]
    assert names[0] == "cpu" and "emu:0" in names
    cpu = devs[0]
    assert concord.float64 in cpu["storable"] and cpu["memory"] == "host"
    emu = next(d for d in devs if d["name"] == "emu:0")
    assert concord.float64 not in emu["storable"] and emu["profile"] != "none"
    assert concord.is_available("cpu") and not concord.is_available("emu:7")


def test_scope_cannot_be_entered_twice():
    s = concord.dtype_policy("strict")
    with s:
        with pytest.raises(concord.ValueError, match="already entered"):
            s.__enter__()
    assert concord.dtype_policy() == "downcast"


@pytest.mark.parametrize("name", ["opencl:9", "vulkan:9", "emu:99", "cuda:0"])
def test_absent_device_raises_a_clear_error(name):
    a = concord.tensor([1.0, 2.0])
    with pytest.raises(concord.DeviceError) as e:
        a.to(name)
    assert str(e.value).startswith("[") and name.split(":")[0] in str(e.value)
    assert a.tolist() == [1.0, 2.0]


def test_failing_device_raises_and_loses_nothing(device):
    """A device that fails under the caller (fault injection: the same path as a real failure)."""
    if device in ("cpu",) or device.startswith("emu"):
        pytest.skip("host devices copy with memcpy, which cannot fail")
    a = concord.tensor([1.0, 2.0, 3.0])
    x = a.to(device)
    with concord.testing.faults() as f:
        f.fail_next_transfer()
        with pytest.raises(concord.DeviceError, match=r"^\[(opencl|vulkan)\]"):
            a.to(device)
        f.fail_next_transfer()
        with pytest.raises(concord.DeviceError):
            x.to("cpu")
        f.fail_allocation_after(1, device.split(":")[0])
        with pytest.raises(concord.OutOfMemoryError):
            x + x
    assert a.tolist() == [1.0, 2.0, 3.0]
    assert x.tolist() == [1.0, 2.0, 3.0]          # still there, still usable
    assert (x + x).tolist() == [2.0, 4.0, 6.0]
