/// Datasets published by OpenThread, Home Assistant and python-otbr-api, used as test vectors by every test target
/// that needs a real dataset (one copy, so the targets cannot drift apart).
///
/// Sources (see /work/shared/reference/thread-epskc.md, section 2):
/// - `openthread/openthread src/cli/README_DATASET.md` (current and a 2020 revision);
/// - `home-assistant/core tests/components/thread/__init__.py` and `tests/components/otbr/`;
/// - `home-assistant-libs/python-otbr-api tests/test_tlv_parser.py`.
public enum PublishedVectors {
    /// OpenThread README, "dataset set active" / "dataset active": OpenThread-5938 on channel 15.
    public static let openThread5938 =
        "0e080000000000010000000300000f35060004001fffe0020839758ec8144b07fb0708fdf1f1add0797dc00510f366cec7a446"
        + "bab978d90d27abe38f23030f4f70656e5468726561642d353933380102593804103ca67c969efb0d0c74a4d8ee923b576c0c04"
        + "02a0f7f8"

    /// The network key and PSKc inside ``openThread5938`` (the secrets its listing shows).
    public static let openThread5938NetworkKey = "f366cec7a446bab978d90d27abe38f23"
    public static let openThread5938PSKc = "3ca67c969efb0d0c74a4d8ee923b576c"

    /// The listing the README prints for ``openThread5938``.
    public static let openThread5938Listing = [
        "Active Timestamp: 1",
        "Channel: 15",
        "Channel Mask: 0x07fff800",
        "Ext PAN ID: 39758ec8144b07fb",
        "Mesh Local Prefix: fdf1:f1ad:d079:7dc0::/64",
        "Network Key: f366cec7a446bab978d90d27abe38f23",
        "Network Name: OpenThread-5938",
        "PAN ID: 0x5938",
        "PSKc: 3ca67c969efb0d0c74a4d8ee923b576c",
        "Security Policy: 672 onrc 0",
    ]

    /// OpenThread README, "dataset tlvs": OpenThread-de2b on channel 22.
    public static let openThreadDe2b =
        "0e080000000000010000000300001635060004001fffe00208d196fa2040e973b60708fdbbc310c48f3a3905109929154dbc36"
        + "3218bcd22f907caf5c15030f4f70656e5468726561642d646532620102de2b041015b2c16f7ba92ed4bc7b1ee054f1553f0c04"
        + "02a0f7f8"

    /// The listing the README prints for ``openThreadDe2b``.
    public static let openThreadDe2bListing = [
        "Active Timestamp: 1",
        "Channel: 22",
        "Channel Mask: 0x07fff800",
        "Ext PAN ID: d196fa2040e973b6",
        "Mesh Local Prefix: fdbb:c310:c48f:3a39::/64",
        "Network Key: 9929154dbc363218bcd22f907caf5c15",
        "Network Name: OpenThread-de2b",
        "PAN ID: 0xde2b",
        "PSKc: 15b2c16f7ba92ed4bc7b1ee054f1553f",
        "Security Policy: 672 onrc 0",
    ]

    /// OpenThread README, "dataset active -x": channel 22 with a Wake-up Channel TLV (23). The listing printed
    /// above it in the README belongs to another dataset.
    public static let openThread6c99 =
        "0e08000000000001000000030000164a0300001735060004001fffe00208b182e6a17996cecc0708fd3f363fa8f1b0bc0510eb"
        + "b6f6a447c96e1542176df3a834ac0e030f4f70656e5468726561642d3663393901026c99041096e9cdfe1eb1363a3676e2b94d"
        + "f0271b0c0402a0f7f8"

    /// OpenThread README, "dataset init tlvs": OpenThread-c58d on channel 18.
    public static let openThreadC58d =
        "0e080000000000010000000300001235060004001fffe002088665f03e6e42e7750708fda576e5f9a5bd8c0510506071d8391b"
        + "e671569e080d52870fd5030f4f70656e5468726561642d633538640102c58d04108a926cf8b13275a012ceedeeae40910d0c04"
        + "02a0f7f8"

    /// OpenThread README, "dataset pending -x": a pending dataset on channel 26.
    public static let openThreadPendingBff8 =
        "0e0800000000000100003308000000000002000034040000b512000300001a35060004001fffe00208a74182f4d3f4de410708"
        + "fd46c1b9e15955740510ed916e454d96fd00184f10a6f5c9e1d3030f4f70656e5468726561642d626666380102bff80410264f"
        + "78414adc683191863d968f72d1b70c0402a0f7f8"

    /// The listing the README prints for ``openThreadPendingBff8``. Its Delay line (58706) was captured at a
    /// different moment than the hex, whose Delay Timer is 0x0000b512 = 46354 ms: the timer counts down.
    public static let openThreadPendingBff8Listing = [
        "Pending Timestamp: 2",
        "Active Timestamp: 1",
        "Channel: 26",
        "Channel Mask: 0x07fff800",
        "Delay: 58706",
        "Ext PAN ID: a74182f4d3f4de41",
        "Mesh Local Prefix: fd46:c1b9:e159:5574::/64",
        "Network Key: ed916e454d96fd00184f10a6f5c9e1d3",
        "Network Name: OpenThread-bff8",
        "PAN ID: 0xbff8",
        "PSKc: 264f78414adc683191863d968f72d1b7",
        "Security Policy: 672 onrc 0",
    ]

    /// OpenThread README (2020 revision): OpenThread-8611 with a 3-byte Security Policy `0000ff` (rotation 0).
    public static let openThread8611 =
        "0e080000000000010000000300001035060004001fffe002084eb74ab03c56e6d00708fdc7fe165c83a67805108e2104f183e6"
        + "98da87e96efc1e45aa51030f4f70656e5468726561642d383631310102861104108d6273023d82c841eff0e68db86f35740c03"
        + "0000ff"

    /// Home Assistant DATASET_1 (also the ot-br-posix OpenAPI example and python-otbr-api's test dataset).
    public static let homeAssistant1 =
        "0E080000000000010000000300000F35060004001FFFE0020811111111222222220708FDAD70BF"
        + "E5AA15DD051000112233445566778899AABBCCDDEEFF030E4F70656E54687265616444656D6F01"
        + "0212340410445F2B5CA6F2A93A55CE570A70EFEECB0C0402A0F7F8"

    /// Home Assistant DATASET_2: "HomeAssistant!".
    public static let homeAssistant2 =
        "0E080000000000010000000300000F35060004001FFFE0020811111111222222330708FDAD70BF"
        + "E5AA15DD051000112233445566778899AABBCCDDEEFF030E486f6d65417373697374616e742101"
        + "0212340410445F2B5CA6F2A93A55CE570A70EFEECB0C0402A0F7F8"

    /// Home Assistant DATASET_3: the 14-byte, 5-character name "~🐣🐥🐤~".
    public static let homeAssistant3 =
        "0E080000000000010000000300000F35060004001FFFE0020811111111222222440708FDAD70BF"
        + "E5AA15DD051000112233445566778899AABBCCDDEEFF030E7ef09f90a3f09f90a5f09f90a47e01"
        + "0212340410445F2B5CA6F2A93A55CE570A70EFEECB0C0402A0F7F8"

    /// Home Assistant DATASET_1_NO_ACTIVETIMESTAMP.
    public static let homeAssistant1NoActiveTimestamp =
        "000300000F35060004001FFFE0020811111111222222220708FDAD70BF"
        + "E5AA15DD051000112233445566778899AABBCCDDEEFF030E4F70656E54687265616444656D6F01"
        + "0212340410445F2B5CA6F2A93A55CE570A70EFEECB0C0402A0F7F8"

    /// Home Assistant DATASET_1_LARGER_TIMESTAMP: DATASET_1 with Active Timestamp seconds 2.
    public static let homeAssistant1LargerTimestamp =
        "0E080000000000020000000300000F35060004001FFFE0020811111111222222220708FDAD70BF"
        + "E5AA15DD051000112233445566778899AABBCCDDEEFF030E4F70656E54687265616444656D6F01"
        + "0212340410445F2B5CA6F2A93A55CE570A70EFEECB0C0402A0F7F8"

    /// Home Assistant's OTBR tests, DATASET_CH16_PENDING: a channel change to 15 with a 26265 ms Delay Timer
    /// but no Pending Timestamp.
    public static let homeAssistantPendingCh15 =
        "0E080000000000020000" + "340400006699" + "000300000F" + "35060004001FFFE0" + "0208F642646DA209B1C0"
        + "0708FDF57B5A0FE2AAF6" + "0510DE98B5BA1A528FEE049D4B4B01835375" + "030D4F70656E546872656164204841"
        + "010225A4" + "0410F5DD18371BFD29E1A601EF6FFAD94C03" + "0C0402A0F7F8"

    /// python-otbr-api: a partial dataset from an Apple border router, with a Wake-up Channel (type 74) and a
    /// channel mask for channels 11 to 25.
    public static let appleBorderRouterPartial =
        "0e08000065901a07000000030000194a0300000f35060004001fffc003104d79486f6d6531323331323331323334"

    /// Every complete Active Operational Dataset above.
    public static let completeActive: [String] = [
        openThread5938, openThreadDe2b, openThread6c99, openThreadC58d, openThread8611, homeAssistant1,
        homeAssistant2, homeAssistant3, homeAssistant1LargerTimestamp, homeAssistantPendingCh15,
    ]

    /// Every well-formed dataset above, complete or not.
    public static let wellFormed: [String] = completeActive + [
        openThreadPendingBff8, homeAssistant1NoActiveTimestamp, appleBorderRouterPartial,
    ]
}
