/* sgvm.h - everything sgvm puts in front of an OpenCL C program (-include). */
#ifndef SGVM_H
#define SGVM_H
#include "sgvm_base.h"
#include "sgvm_intel_subgroups.h"
#include "sgvm_collectives.h"
#include "sgvm_media_block.h"
#include "sgvm_workarounds.h"
#endif
