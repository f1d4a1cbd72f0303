/* SPDX-License-Identifier: BSD-2-Clause */
/* Test programs carry no generated table: tests install their own.
 * Programs that opt in to the three-pass link get theirs from
 * tools/kp-symgen instead of this file. */
#include "kernel/symbols.h"

const struct sym_table kp_symtab = { .base = 0, .strings = "" };
