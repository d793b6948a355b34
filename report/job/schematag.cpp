// SPDX-License-Identifier: MIT
#include "report/core/schemas.h"
#include "report/job/rankreportreader.h"

#include <fstream>

namespace timesink::report {

namespace {

/// Walks the start of a JSON text with nlohmann's SAX interface until the top-level object's "schema" value: stops
/// there, at the first value that is not an object at the top, or where the (cut) text ends.
class SchemaSax
{
public:
    std::string schema;

    bool null() { return value(); }
    bool boolean(bool /*unused*/) { return value(); }
    bool number_integer(nlohmann::json::number_integer_t /*unused*/) { return value(); }
    bool number_unsigned(nlohmann::json::number_unsigned_t /*unused*/) { return value(); }
    bool number_float(nlohmann::json::number_float_t /*unused*/, const std::string& /*unused*/) { return value(); }
    bool binary(nlohmann::json::binary_t& /*unused*/) { return value(); }
    bool string(std::string& text)
    {
        if (m_depth == 1 && m_atSchema) {
            schema = text;
            return false; // found: stop reading
        }
        return value();
    }
    bool start_object(std::size_t /*unused*/)
    {
        if (m_atSchema)
            return false; // "schema": {…} is no tag
        ++m_depth;
        return true;
    }
    bool end_object()
    {
        --m_depth;
        return m_depth > 0; // the top-level object ended without a "schema"
    }
    bool start_array(std::size_t /*unused*/)
    {
        if (m_depth == 0 || m_atSchema)
            return false; // the top level is no object, or "schema": […]
        ++m_depth;
        return true;
    }
    bool end_array()
    {
        --m_depth;
        return true;
    }
    bool key(std::string& name)
    {
        m_atSchema = m_depth == 1 && name == "schema";
        return true;
    }
    bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/,
                     const nlohmann::detail::exception& /*unused*/)
    {
        return false;
    }

private:
    [[nodiscard]] bool value() const
    {
        // A scalar at the top level, or "schema" holding something other than a string.
        return m_depth > 0 && !(m_depth == 1 && m_atSchema);
    }
    int m_depth = 0;
    bool m_atSchema = false;
};

} // namespace

std::string jsonSchemaTag(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    std::string head(std::size_t {64} << 10, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    SchemaSax sax;
    (void)nlohmann::json::sax_parse(head, &sax, nlohmann::json::input_format_t::json, false);
    return sax.schema;
}

bool looksLikeReportJson(const std::filesystem::path& path)
{
    return jsonSchemaTag(path) == kReportSchema;
}

} // namespace timesink::report
