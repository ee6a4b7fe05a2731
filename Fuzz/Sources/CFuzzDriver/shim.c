// The declarations in include/CFuzzDriver.h are defined by libFuzzer; this file only makes the target a C target.
#include "CFuzzDriver.h"
