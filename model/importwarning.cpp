// SPDX-License-Identifier: MIT
#include "model/importwarning.h"

namespace timesink::model {

std::optional<ImportWarningKind> importWarningKindFromKey(std::string_view key)
{
    for (const ImportWarningKindInfo& info : kImportWarningKinds) {
        if (info.key == key)
            return info.kind;
    }
    return std::nullopt;
}

bool isSeriousImportWarning(std::string_view kind)
{
    const std::optional<ImportWarningKind> k = importWarningKindFromKey(kind);
    return k && importWarningInfo(*k).serious;
}

} // namespace timesink::model
