// nul_stderr.py in C++: plays the first legal action and, at every decision and at the end,
// writes its environment as the kernel gives it (/proc/self/environ, NUL-separated), raw
// NUL bytes and bytes that are not UTF-8 to stderr. No JSON library: the first legal action
// is cut out of the decide line as it stands.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

static const char GARBAGE[] = "\0\0nul\0bytes\0 \x80 \xe2\x82 \xed\xb2\x80 \xff\xfe\0\n";

static void spill(const std::string& where) {
    std::ifstream environ("/proc/self/environ", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(environ)), std::istreambuf_iterator<char>());
    std::string out = where + ": " + text + "\n" + std::string(GARBAGE, sizeof GARBAGE - 1);
    std::fwrite(out.data(), 1, out.size(), stderr);
    std::fflush(stderr);
}

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.rfind("{\"type\":\"start\"", 0) == 0) {
            std::cout << "{\"type\": \"ready\"}" << std::endl;
        } else if (line.rfind("{\"type\":\"decide\"", 0) == 0) {
            std::size_t at = line.find("\"request\":") + 10;
            spill("decision " + line.substr(at, line.find_first_of(",}", at) - at));
            std::size_t first = line.find("\"legal_actions\":[") + 17, depth = 0, end = first;
            do { depth += line[end] == '{'; depth -= line[end] == '}'; ++end; } while (depth);
            std::cout << "{\"action\": " << line.substr(first, end - first) << "}" << std::endl;
        } else if (line.rfind("{\"type\":\"end\"", 0) == 0) {
            spill("end");
        }
    }
}
