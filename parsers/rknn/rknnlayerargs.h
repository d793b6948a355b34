// SPDX-License-Identifier: MIT
#pragma once

// The args of a layer's slice: one per cell the table printed, under the names RknnImporter documents (layer_id,
// op_type, full_name, source_op, node, …, cores_used, and the unknown columns by their title).

#include "model/tracebuilder.h"
#include "parsers/rknn/rknnperfreport.h"

#include <vector>

namespace timesink::parsers {

class RknnLayerArgs
{
public:
    /// Interns the arg names into `b`, the builder the args are for.
    explicit RknnLayerArgs(model::TraceBuilder& b);

    /// The args of `l`, their string values interned into the builder.
    [[nodiscard]] std::vector<model::Arg> of(const RknnLayer& l) const;

private:
    model::TraceBuilder& m_b;
    model::StringId m_layerId;
    model::StringId m_opType;
    model::StringId m_fullName;
    model::StringId m_sourceOp;
    model::StringId m_node;
    model::StringId m_dataType;
    model::StringId m_target;
    model::StringId m_inputShape;
    model::StringId m_outputShape;
    model::StringId m_ddrCycles;
    model::StringId m_npuCycles;
    model::StringId m_totalCycles;
    model::StringId m_timeUs;
    model::StringId m_macUsage;
    model::StringId m_workload;
    model::StringId m_workloadImprove;
    model::StringId m_coresUsed;
    model::StringId m_rwKb;
    model::StringId m_uid;
};

} // namespace timesink::parsers
