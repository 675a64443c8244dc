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

#endif /* PIK_SELECT_INTERNAL_H */
