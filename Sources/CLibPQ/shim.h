#ifndef MATTERFLOW_CLIBPQ_SHIM_H
#define MATTERFLOW_CLIBPQ_SHIM_H
/* libpq's declarations only: MatterFlow does not link libpq but opens it when a store is first used (LibPQ.swift).
   Debian keeps the header under postgresql/ (package libpq-dev); other systems on the include path itself. */
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
#endif
