public enum ThreadDatasetPlaceholder {}
