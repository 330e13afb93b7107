#include "fleet/RedisReply.h"

#include <hiredis/hiredis.h>

namespace sb {

RedisReply RedisReply::fromHiredis(const redisReply *reply)
{
    RedisReply out;
    if (!reply)
        return error("no reply: the connection to Redis closed");
    switch (reply->type) {
    case REDIS_REPLY_STATUS:
        out.type = Type::Status;
        out.text = QByteArray(reply->str, int(reply->len));
        break;
    case REDIS_REPLY_ERROR:
        out.type = Type::Error;
        out.text = QByteArray(reply->str, int(reply->len));
        break;
    case REDIS_REPLY_INTEGER:
        out.type = Type::Integer;
        out.integer = reply->integer;
        break;
    case REDIS_REPLY_STRING:
        out.type = Type::String;
        out.text = QByteArray(reply->str, int(reply->len));
        break;
    case REDIS_REPLY_ARRAY:
        out.type = Type::Array;
        out.elements.reserve(reply->elements);
        for (size_t i = 0; i < reply->elements; ++i)
            out.elements.push_back(fromHiredis(reply->element[i]));
        break;
    default:
        out.type = Type::Nil;
        break;
    }
    return out;
}

RedisReply RedisReply::error(QByteArray message)
{
    RedisReply out;
    out.type = Type::Error;
    out.text = std::move(message);
    return out;
}

} // namespace sb
