#ifndef MATTERFLOW_CJSONC_SHIM_H
#define MATTERFLOW_CJSONC_SHIM_H
#include <json-c/json.h>
#endif
