#pragma once

#include "control/EventLog.h"
#include "control/MetricsSnapshot.h"

#include <QJsonObject>

#include <optional>

namespace sb {

// The JSON form of what the engine publishes, shared by the admin API (which writes it) and the
// RemoteGateway (which reads it back), so an attached console sees the same values the engine has.
// Counters travel as JSON numbers (exact up to 2^53). Reading is lenient: a missing field keeps its
// default, so a newer instance with more fields can still be watched.
namespace SnapshotJson {

QJsonObject toJson(const ChannelSnapshot &channel);
ChannelSnapshot channelFromJson(const QJsonObject &json);

QJsonObject toJson(const MetricsSnapshot &snapshot);
MetricsSnapshot snapshotFromJson(const QJsonObject &json);

QJsonObject toJson(const EventLog::Entry &entry);
std::optional<EventLog::Entry> eventFromJson(const QJsonObject &json);

} // namespace SnapshotJson

} // namespace sb
