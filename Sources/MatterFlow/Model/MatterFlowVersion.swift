/// The version of MatterFlow this build is: what `matterflow --version` prints, what a remote hub is told in the
/// handshake, and what a fleet worker records in the store beside the schema it was built for.
public enum MatterFlowVersion {
    /// The release, as `major.minor.patch`.
    public static let current = "0.1.0"
}
