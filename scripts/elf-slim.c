// Two edits to ELF files that scripts/build-static.sh makes to shrink the static fastget.
//
//   elf-slim unretain OBJECT.o
//       Clears SHF_GNU_RETAIN on the object's function sections (.text.*). The Swift runtime's
//       archive marks most of its functions retained, so --gc-sections cannot drop the ones
//       the program never references; cleared, the linker keeps exactly what is reachable.
//       The metadata sections (swift5_*) the runtime finds through __start/__stop symbols
//       keep their flag.
//   elf-slim drop-eh-frame-header EXECUTABLE
//       Turns the PT_GNU_EH_FRAME program header into PT_NULL, after objcopy removed
//       .eh_frame and .eh_frame_hdr, so an unwinder finds no table instead of reading
//       memory that is no longer mapped.
//
// Both edit the file in place and print what they changed. ELF64 little-endian only.
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char *map(const char *path, size_t *size) {
    int fd = open(path, O_RDWR);
    if (fd < 0) { perror(path); return NULL; }
    struct stat st;
    if (fstat(fd, &st) != 0) { perror(path); close(fd); return NULL; }
    void *data = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (data == MAP_FAILED) { perror(path); return NULL; }
    *size = (size_t)st.st_size;
    const Elf64_Ehdr *header = data;
    if ((size_t)st.st_size < sizeof(Elf64_Ehdr) || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_ident[EI_DATA] != ELFDATA2LSB) {
        fprintf(stderr, "%s: not a little-endian ELF64 file\n", path);
        munmap(data, *size);
        return NULL;
    }
    return data;
}

static int unretain(const char *path) {
    size_t size;
    unsigned char *data = map(path, &size);
    if (!data) return 1;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)data;
    if (header->e_shoff == 0 || header->e_shentsize != sizeof(Elf64_Shdr) ||
        header->e_shoff + (size_t)header->e_shnum * sizeof(Elf64_Shdr) > size || header->e_shstrndx >= header->e_shnum) {
        fprintf(stderr, "%s: no usable section table\n", path);
        munmap(data, size);
        return 1;
    }
    Elf64_Shdr *sections = (Elf64_Shdr *)(data + header->e_shoff);
    const Elf64_Shdr *names = &sections[header->e_shstrndx];
    unsigned cleared = 0;
    for (unsigned i = 0; i < header->e_shnum; i++) {
        if (sections[i].sh_name >= names->sh_size) continue;
        const char *name = (const char *)data + names->sh_offset + sections[i].sh_name;
        if (strncmp(name, ".text.", 6) == 0 && (sections[i].sh_flags & SHF_GNU_RETAIN)) {
            sections[i].sh_flags &= ~(Elf64_Xword)SHF_GNU_RETAIN;
            cleared++;
        }
    }
    munmap(data, size);
    printf("%s: %u function sections no longer retained\n", path, cleared);
    return 0;
}

static int dropEhFrameHeader(const char *path) {
    size_t size;
    unsigned char *data = map(path, &size);
    if (!data) return 1;
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)data;
    if (header->e_phentsize != sizeof(Elf64_Phdr) || header->e_phoff + (size_t)header->e_phnum * sizeof(Elf64_Phdr) > size) {
        fprintf(stderr, "%s: no usable program header table\n", path);
        munmap(data, size);
        return 1;
    }
    Elf64_Phdr *segments = (Elf64_Phdr *)(data + header->e_phoff);
    unsigned changed = 0;
    for (unsigned i = 0; i < header->e_phnum; i++) {
        if (segments[i].p_type == PT_GNU_EH_FRAME) {
            memset(&segments[i], 0, sizeof segments[i]);
            segments[i].p_type = PT_NULL;
            changed++;
        }
    }
    munmap(data, size);
    printf("%s: %u PT_GNU_EH_FRAME header(s) removed\n", path, changed);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "unretain") == 0) return unretain(argv[2]);
    if (argc == 3 && strcmp(argv[1], "drop-eh-frame-header") == 0) return dropEhFrameHeader(argv[2]);
    fprintf(stderr, "usage: elf-slim unretain OBJECT.o | elf-slim drop-eh-frame-header EXECUTABLE\n");
    return 2;
}
