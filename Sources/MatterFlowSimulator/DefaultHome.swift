/// The built-in default home, used when no home description is given (`matterflow run` without `--home`).
extension HomeDescription {
    /// The text of the default home: the same as `Examples/default-home.json` (a test keeps them equal).
    ///
    /// "Maple Street": hub online and reachable, permission granted, four rooms (Living Room, Kitchen, Bedroom,
    /// Office), two devices, no session, seed 1, and one second of simulated latency for `commissionDevice`.
    public static let defaultHomeJSON = """
{
  "version": 1,
  "structure": {
    "id": "maple-street",
    "name": "Maple Street"
  },
  "hub": {
    "online": true,
    "reachable": true
  },
  "permissionGranted": true,
  "rooms": [
    {
      "id": "room-living-room",
      "name": "Living Room"
    },
    {
      "id": "room-kitchen",
      "name": "Kitchen"
    },
    {
      "id": "room-bedroom",
      "name": "Bedroom"
    },
    {
      "id": "room-office",
      "name": "Office"
    }
  ],
  "devices": [
    {
      "id": "device-2c91f0a4b7d3",
      "name": "Floor Lamp",
      "room": "Living Room",
      "vendorID": 65522,
      "productID": 4097,
      "vendorName": "Lumen Works",
      "productName": "Smart Bulb A19",
      "softwareVersion": 3
    },
    {
      "id": "device-7e05b18c4a62",
      "name": "Coffee Maker Plug",
      "room": "Kitchen",
      "vendorID": 65523,
      "productID": 8194,
      "vendorName": "Brightside Home",
      "productName": "Smart Plug Mini",
      "softwareVersion": 12
    }
  ],
  "seed": 1,
  "issuedIDs": 0,
  "simulation": {
    "latencySeconds": {
      "commissionDevice": 1
    }
  }
}
"""

    /// The file name diagnostics use for the built-in default home.
    public static let defaultHomeFileName = "<default home>"

    /// The built-in default home, decoded from ``defaultHomeJSON``.
    public static let defaultHome: HomeDescription = {
        do {
            return try HomeDescription.parse(defaultHomeJSON, file: defaultHomeFileName)
        } catch {
            preconditionFailure("the built-in default home does not decode: \(error)")
        }
    }()
}
