#pragma once

#include <QByteArray>
#include <vector>

struct redisReply;

namespace sb {

// One reply of Redis as a value, copied out of hiredis's reply before its callback returns, so a
// handler may keep it. A command whose connection went away gets an Error reply saying so.
struct RedisReply {
    enum class Type { Nil, Status, Error, Integer, String, Array };
    Type type = Type::Nil;
    QByteArray text;        // Status, Error, String
    long long integer = 0;  // Integer
    std::vector<RedisReply> elements; // Array

    bool isError() const { return type == Type::Error; }
    static RedisReply fromHiredis(const redisReply *reply);
    static RedisReply error(QByteArray message);
};

} // namespace sb
