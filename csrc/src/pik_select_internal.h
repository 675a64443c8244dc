/*
 * Internal: what the 6R selection (pik_select.c) and the S-R-S arm-angle selection (pik_srs.c)
 * share. Not part of the public API.
 */
#ifndef PIK_SELECT_INTERNAL_H
#define PIK_SELECT_INTERNAL_H

#include "piperik/pik_select.h"

/* Puts *sel in its "nothing chosen" state (index -1, every other field zero, no joint over a step
 * limit). Both selections call it before their first check, so a caller that reads sel after an
 * error status finds no stale answer, and a field added to pik_selection is cleared in one place. */
void pik_selection_clear(pik_selection *sel);

/* 1 when every margin, penalty and step limit of o is >= 0 (false for NaN); the weights are the
 * caller's to check, as their count depends on the arm. */
int pik_select_options_valid(const pik_select_options *o);

/* continuous_step_rad when the options leave it at 0: a branch change with every joint moving less
 * than this is continuous (no branch-switch penalty). */
#define PIK_DEFAULT_CONTINUOUS_STEP_RAD PIK_R(0.1)

#endif /* PIK_SELECT_INTERNAL_H */
