"""A MatterFlow hub that bridges the hub protocol to the Open Home Foundation Matter Server."""

NAME = "matter-server-bridge"
VERSION = "1.0.0"
