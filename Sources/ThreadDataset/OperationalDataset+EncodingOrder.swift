extension OperationalDataset {
    /// The types present, in encoding order: parsed or set order first, then new fields in OpenThread's order
    /// (``DatasetTLVType/datasetTypes``), then unknown TLVs that were never ordered.
    ///
    /// ``tlvs``, ``encode()`` and ``encodedLength`` all follow this order; working out the order alone avoids
    /// building a TLV for every type just to see whether it is there.
    var encodingOrder: [DatasetTLVType] {
        var seen = DatasetTLVTypeSet()
        var order: [DatasetTLVType] = []
        order.reserveCapacity(tlvOrder.count)
        func consider(_ type: DatasetTLVType) {
            guard !seen.contains(type) else { return }
            seen.insert(type)
            if valueLength(of: type) != nil {
                order.append(type)
            }
        }
        tlvOrder.forEach(consider)
        DatasetTLVType.datasetTypes.forEach(consider)
        unknownTLVs.forEach { consider($0.type) }
        return order
    }

    /// The length of the value of the TLV of `type` as ``tlv(for:)`` would encode it, or `nil` when absent.
    func valueLength(of type: DatasetTLVType) -> Int? {
        switch type {
        case .activeTimestamp: activeTimestamp.map { _ in ThreadTimestamp.encodedLength }
        case .pendingTimestamp: pendingTimestamp.map { _ in ThreadTimestamp.encodedLength }
        case .delayTimer: delayTimer.map { _ in UInt32.bitWidth / 8 }
        case .channel: channel.map { _ in ThreadChannel.encodedLength }
        case .wakeupChannel: wakeupChannel.map { _ in ThreadChannel.encodedLength }
        case .channelMask: channelMask?.encodedLength
        case .panID: panID.map { _ in UInt16.bitWidth / 8 }
        case .extendedPANID: extendedPANID?.bytes.count
        case .networkName: networkName?.value.utf8.count
        case .meshLocalPrefix: meshLocalPrefix?.bytes.count
        case .networkKey: networkKey?.revealedBytes.count
        case .pskc: pskc?.revealedBytes.count
        case .securityPolicy: securityPolicy?.encodedLength
        default: unknownTLVs.first { $0.type == type }?.value.count
        }
    }
}
