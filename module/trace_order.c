// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: instantiates the trace events of mmtune_trace_order.h (once,
 * here).
 */
#define CREATE_TRACE_POINTS
#include "mmtune_trace_order.h"
