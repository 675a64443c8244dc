// The serial protocol codec (pik_proto.h) for Python: its constants as _core.PROTO (pik_proto.h is
// their single source of truth; firmware_bridge/protocol.py reads them from here), frame building,
// the byte-stream parser and the codec benchmark.
#include "bindings.h"

#include <cstring>
#include <string>

namespace py = pybind11;

namespace pikbind {

namespace {

py::bytes proto_encode(int type, int seq, py::bytes payload)
{
    std::string pl = payload;
    if (type < 0 || type > 255 || seq < 0 || seq > 0xFFFF) {
        throw py::value_error("type: 0..255 and seq: 0..65535");
    }
    uint8_t wire[PIK_PROTO_MAX_WIRE];
    int n = pik_frame_build(static_cast<uint8_t>(type), static_cast<uint16_t>(seq),
                            reinterpret_cast<const uint8_t *>(pl.data()), pl.size(), wire, sizeof wire);
    if (n < 0) {
        throw py::value_error(std::string("payload: ") + pik_proto_status_str(n) + " (at most " +
                              std::to_string(PIK_PROTO_MAX_PAYLOAD) + " bytes)");
    }
    return py::bytes(reinterpret_cast<const char *>(wire), static_cast<size_t>(n));
}

class ProtoParser {
  public:
    ProtoParser() { pik_parser_init(&p_); }

    // [("frame", type, seq, payload) | ("error", nack_reason, seq)]
    py::list feed(py::bytes data)
    {
        std::string d = data;
        py::list out;
        for (unsigned char c : d) {
            pik_frame f;
            int r = pik_parser_feed(&p_, c, &f);
            if (r == 1) {
                out.append(py::make_tuple("frame", f.type, f.seq,
                                          py::bytes(reinterpret_cast<const char *>(f.payload), f.payload_len)));
            } else if (r < 0) {
                out.append(py::make_tuple("error", pik_proto_nack_reason(r), f.seq));
            }
        }
        return out;
    }

    py::dict counters() const
    {
        py::dict d;
        d["frames_ok"] = p_.frames_ok;
        d["crc_errors"] = p_.crc_errors;
        d["len_errors"] = p_.len_errors;
        d["overflows"] = p_.overflows;
        d["ver_errors"] = p_.ver_errors;
        return d;
    }

  private:
    pik_parser p_;
};

// Frames per second through the C codec: encode + parse `count` SETPOINT frames of n joints.
double proto_bench_fps(int n_joints, int count)
{
    if (n_joints < 1 || n_joints > PIK_PROTO_MAX_JOINTS || count < 1) {
        throw py::value_error("n_joints: 1..12, count >= 1");
    }
    py::gil_scoped_release release;
    return bench_codec_fps(n_joints, count);
}

}  // namespace

void bind_proto(py::module_ &m)
{
    py::dict proto;
    proto["VERSION"] = PIK_PROTO_VERSION;
    proto["MAX_FRAME"] = PIK_PROTO_MAX_FRAME;
    proto["MAX_PAYLOAD"] = PIK_PROTO_MAX_PAYLOAD;
    proto["SEQ_UNKNOWN"] = PIK_SEQ_UNKNOWN;
    proto["SETPOINT"] = PIK_MSG_SETPOINT;
    proto["TRAJ_SEGMENT"] = PIK_MSG_TRAJ_SEGMENT;
    proto["HEARTBEAT"] = PIK_MSG_HEARTBEAT;
    proto["ENABLE"] = PIK_MSG_ENABLE;
    proto["CONFIG"] = PIK_MSG_CONFIG;
    proto["ESTOP"] = PIK_MSG_ESTOP;
    proto["POSE_SETPOINT"] = PIK_MSG_POSE_SETPOINT;
    proto["GET_STATE"] = PIK_MSG_GET_STATE;
    proto["LIMITS"] = PIK_MSG_LIMITS;
    proto["GET_BOOT"] = PIK_MSG_GET_BOOT;
    proto["TOOL"] = PIK_MSG_TOOL;
    proto["ACK"] = PIK_MSG_ACK;
    proto["NACK"] = PIK_MSG_NACK;
    proto["STATE"] = PIK_MSG_STATE;
    proto["BOOT"] = PIK_MSG_BOOT;
    proto["STATE_DISABLED"] = PIK_STATE_DISABLED;
    proto["STATE_ENABLED"] = PIK_STATE_ENABLED;
    proto["STATE_HOLD"] = PIK_STATE_HOLD;
    proto["STATE_FAULT"] = PIK_STATE_FAULT;
    proto["NACK_CRC"] = PIK_NACK_CRC;
    proto["NACK_LEN"] = PIK_NACK_LEN;
    proto["NACK_VER"] = PIK_NACK_VER;
    proto["NACK_STALE"] = PIK_NACK_STALE;
    proto["NACK_TYPE"] = PIK_NACK_TYPE;
    proto["NACK_QUEUE_FULL"] = PIK_NACK_QUEUE_FULL;
    proto["NACK_LIMIT"] = PIK_NACK_LIMIT;
    proto["NACK_DISABLED"] = PIK_NACK_DISABLED;
    proto["NACK_NO_IK"] = PIK_NACK_NO_IK;
    proto["FAULT_WATCHDOG"] = PIK_FAULT_WATCHDOG;
    proto["FAULT_LIMIT"] = PIK_FAULT_LIMIT;
    proto["FAULT_ESTOP"] = PIK_FAULT_ESTOP;
    proto["FAULT_RX_OVERFLOW"] = PIK_FAULT_RX_OVERFLOW;
    proto["CONFIG_F_THIN_ACK"] = PIK_CONFIG_F_THIN_ACK;
    proto["THIN_ACK_EVERY"] = PIK_THIN_ACK_EVERY;
    proto["MAX_CONFIG_JOINTS"] = PIK_PROTO_MAX_CONFIG_JOINTS;
    proto["MAX_LIMITS_JOINTS"] = PIK_PROTO_MAX_LIMITS_JOINTS;
    proto["MAX_TRAJ_VALUES"] = PIK_PROTO_MAX_TRAJ_VALUES;
    proto["CAP_TRAJ"] = PIK_CAP_TRAJ;
    proto["CAP_POSE"] = PIK_CAP_POSE;
    proto["CAP_GET_STATE"] = PIK_CAP_GET_STATE;
    proto["CAP_THIN_ACK"] = PIK_CAP_THIN_ACK;
    proto["CAP_LIMITS"] = PIK_CAP_LIMITS;
    proto["CAP_GET_BOOT"] = PIK_CAP_GET_BOOT;
    proto["CAP_TOOL"] = PIK_CAP_TOOL;
    m.attr("PROTO") = proto;
    m.def("proto_crc16", [](py::bytes data) {
        std::string d = data;
        return pik_crc16(reinterpret_cast<const uint8_t *>(d.data()), d.size());
    });
    m.def("proto_encode", &proto_encode, py::arg("type"), py::arg("seq"), py::arg("payload"));
    m.def("proto_bench_fps", &proto_bench_fps, py::arg("n_joints"), py::arg("count"));
    py::class_<ProtoParser>(m, "ProtoParser")
        .def(py::init<>())
        .def("feed", &ProtoParser::feed, py::arg("data"))
        .def("counters", &ProtoParser::counters);
}

}  // namespace pikbind
