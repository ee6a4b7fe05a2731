#ifndef MATTERFLOW_CLIBPQ_SHIM_H
#define MATTERFLOW_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
