// SPDX-License-Identifier: MIT
#pragma once

// The one way a function that can fail says so (in the manner of LLVM's Expected and Perfetto's StatusOr): a Status
// (a kind that callers branch on, and a message for people that names the file and what was wrong), or an
// Expected<T> that holds either a T or a failed Status. Callers decide by the kind (a cancelled load is not an error
// to show), never by comparing the message's text. A function without a value returns a Status alone; a default
// Status is a success.
//
//   model::Expected<model::TracePtr> open(const std::filesystem::path& path)
//   {
//       if (!readable(path))
//           return model::Status(model::StatusKind::CannotRead, "cannot open " + path.string() + ": …");
//       return trace; // a value converts implicitly
//   }
//
//   const model::Expected<model::TracePtr> r = open(path);
//   if (!r) {
//       if (r.status().kind() != model::StatusKind::Cancelled)
//           show(r.status().message());
//       return;
//   }
//   use(*r.value());

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace timesink::model {

enum class StatusKind : std::uint8_t {
    Ok,            // no error: a default Status
    Failed,        // a failure the kinds below do not name
    CannotRead,    // missing, unreadable, a directory where a file was needed, out of memory …
    NotRecognised, // readable, but not what was expected (not a trace we know)
    Malformed,     // recognised, but nothing usable could be read (damaged, cut, inconsistent)
    Cancelled,     // the caller asked to stop: not an error to report to anyone
};

class Status
{
public:
    Status() = default;
    Status(StatusKind kind, std::string message)
        : m_kind(kind)
        , m_message(std::move(message))
    {
    }

    [[nodiscard]] bool ok() const { return m_kind == StatusKind::Ok; }
    explicit operator bool() const { return ok(); }
    [[nodiscard]] StatusKind kind() const { return m_kind; }
    [[nodiscard]] bool cancelled() const { return m_kind == StatusKind::Cancelled; }
    /// For people: names the file and says what was wrong. Empty for a success, and for a failure whose kind says
    /// all there is to say (a snapshot cache without an entry).
    [[nodiscard]] const std::string& message() const { return m_message; }

private:
    StatusKind m_kind = StatusKind::Ok;
    std::string m_message;
};

/// A T, or the Status saying why there is none. ok() exactly when a value is held.
template <class T> class Expected
{
public:
    /// Not set yet (a result assigned later): a failure without a message.
    Expected()
        : m_status(StatusKind::Failed, {})
    {
    }
    // Implicit both ways, so that a function returns either its value or a Status.
    Expected(T value)
        : m_value(std::move(value))
    {
    }
    /// A failure. An ok Status here is a caller's mistake: it reads as Failed, so that no Expected is ok without
    /// a value.
    Expected(Status status)
        : m_status(status.ok() ? Status(StatusKind::Failed, status.message()) : std::move(status))
    {
    }

    [[nodiscard]] bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    /// The value; throws std::bad_optional_access on a failure (a caller that did not check ok()).
    [[nodiscard]] T& value() & { return m_value.value(); }
    [[nodiscard]] const T& value() const& { return m_value.value(); }
    [[nodiscard]] T&& value() && { return std::move(m_value.value()); }
    /// Ok when a value is held, else why not.
    [[nodiscard]] const Status& status() const { return m_status; }

private:
    std::optional<T> m_value;
    Status m_status;
};

} // namespace timesink::model
