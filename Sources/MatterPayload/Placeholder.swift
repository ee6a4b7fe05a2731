public enum MatterPayloadPlaceholder {}
