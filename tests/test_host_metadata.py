"""Row metadata names the processor in full (issue 49): where the brand string a hypervisor
reports names no model ("AMD EPYC"), the vendor, family, model and stepping are added, and each
is a column of its own."""

from __future__ import annotations

from islands.measure.host_metadata import collect_metadata, cpu_identity

AMD_VM = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
stepping\t: 1
microcode\t: 0x1000065

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: something else
"""

XEON = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 62
model name\t: Intel(R) Xeon(R) CPU E5-2640 v2 @ 2.00GHz
stepping\t: 4
"""

ARM = """processor\t: 0
BogoMIPS\t: 50.00
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x3
CPU part\t: 0xd0c
CPU revision\t: 1
"""


def test_a_brand_string_without_a_model_number_gets_the_signature() -> None:
    ident = cpu_identity(AMD_VM)
    assert ident["cpu_model"] == "AMD EPYC (AuthenticAMD family 25 model 17 stepping 1)"
    assert ident["cpu_brand"] == "AMD EPYC" and ident["cpu_family"] == "25" and ident["cpu_model_number"] == "17"
    assert ident["cpu_microcode"] == "0x1000065"


def test_a_full_brand_string_is_kept_as_it_is() -> None:
    assert cpu_identity(XEON)["cpu_model"] == "Intel(R) Xeon(R) CPU E5-2640 v2 @ 2.00GHz"


def test_an_arm_processor_is_named_by_implementer_and_part() -> None:
    ident = cpu_identity(ARM)
    assert "implementer 0x41 part 0xd0c revision 1" in ident["cpu_model"]
    assert ident["cpu_vendor"] == "0x41" and ident["cpu_model_number"] == "0xd0c"


def test_every_row_carries_the_identity() -> None:
    meta = collect_metadata()
    for key in ("cpu_model", "cpu_brand", "cpu_vendor", "cpu_family", "cpu_model_number", "cpu_stepping"):
        assert key in meta
    assert meta["cpu_model"] == cpu_identity()["cpu_model"] and meta["cpu_model"]
