/* piperik: closed-form inverse kinematics for arms with a spherical wrist. Umbrella header. */
#ifndef PIPERIK_H
#define PIPERIK_H

#define PIK_VERSION_MAJOR 0
#define PIK_VERSION_MINOR 1
#define PIK_VERSION_PATCH 0
#define PIK_VERSION_STRING "0.1.0"

#include "pik_config.h"
#include "pik_status.h"
#include "pik_trig.h"
#include "pik_types.h"
#include "pik_pose.h"
#include "pik_chain.h"
#include "pik_arm6.h"
#include "pik_select.h"
#include "pik_srs.h"
#include "pik_path.h"
#include "pik_proto.h"

#endif /* PIPERIK_H */
