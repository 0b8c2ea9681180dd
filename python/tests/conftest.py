"""Shared fixtures: the devices to parametrise over (CONCORD_TEST_DEVICES, as the C++ suite,
default: every available device except vulkan, a slow software device here, which runs small cases)."""
import os

import pytest

import concord


def _devices():
    have = [d["name"] for d in concord.devices()]
    want = os.environ.get("CONCORD_TEST_DEVICES")
    if want:
        # Profile configurations ("emu:0=none") are the C++ suite's; each device once here.
        return [d for d in dict.fromkeys(w.split("=")[0] for w in want.split(",")) if d in have]
    return have


DEVICES = _devices()


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture(autouse=True)
def _fresh_report():
    concord.reset_report()
    yield


def stores(device, dtype):
    """True if the device holds dtype (emu:0's default profile has no float64)."""
    info = next(d for d in concord.devices() if d["name"] == device)
    return getattr(concord, dtype) in info["storable"]
