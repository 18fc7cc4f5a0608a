<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DatasetPicker</name>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Train on your own data: an .npz or .csv file, or a folder of images with one sub-folder per class</source>
        <translation>用你自己的数据训练：一个 .npz 或 .csv 文件，或一个图像文件夹（每个类别一个子文件夹）</translation>
    </message>
    <message>
        <source>Data file (.npz, .csv)…</source>
        <translation>数据文件 (.npz, .csv)…</translation>
    </message>
    <message>
        <source>Image folder…</source>
        <translation>图像文件夹…</translation>
    </message>
    <message>
        <source>bundled</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>download</source>
        <translation>需下载</translation>
    </message>
    <message>
        <source>generated</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>downloaded</source>
        <translation>已下载</translation>
    </message>
</context>
<context>
    <name>HelpDialogs</name>
    <message>
        <source>
&lt;h2&gt;What mixed precision does&lt;/h2&gt;
&lt;p&gt;Mixed precision runs most of a model&apos;s math in a 16-bit type while keeping the
model&apos;s weights in float32. Keras calls this a &lt;i&gt;dtype policy&lt;/i&gt;:&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;&lt;b&gt;float32&lt;/b&gt;: everything in 32-bit floats. The reference for accuracy.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_float16&lt;/b&gt;: layers compute in float16, variables stay float32. On NVIDIA
GPUs with Tensor Cores (compute capability 7.0 and newer: V100, T4, RTX 20xx and later,
A100, H100) matrix multiplies and convolutions run several times faster, and activations
take half the memory.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_bfloat16&lt;/b&gt;: the same with bfloat16, which has float32&apos;s exponent range.
Fast on TPUs and on NVIDIA GPUs from Ampere (compute capability 8.0) on.&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;Why the output stays float32&lt;/h3&gt;
&lt;p&gt;The last layer (the softmax) and the loss compute in float32, so the probabilities and
the loss are exact; the layer table in the setup panel highlights it.&lt;/p&gt;
&lt;h3&gt;Loss scaling (float16 only)&lt;/h3&gt;
&lt;p&gt;float16 cannot represent numbers below about 6e-8, so small gradients would
underflow to zero. Loss scaling multiplies the loss by a large factor (32768 by default)
before the backward pass and divides the gradients by it afterwards. &lt;b&gt;Dynamic&lt;/b&gt;
scaling halves the factor and skips the step when a gradient overflows to infinity, and
doubles it again after a run of good steps: the loss-scale chart shows it, with skipped
steps marked. bfloat16 needs no loss scaling.&lt;/p&gt;
&lt;h3&gt;When it does not help&lt;/h3&gt;
&lt;ul&gt;
&lt;li&gt;On a CPU without half-precision math, or a GPU without Tensor Cores, float16 is
often &lt;i&gt;slower&lt;/i&gt; than float32: the hardware check says which is which, and Measure
times it on this machine.&lt;/li&gt;
&lt;li&gt;A tiny model or an input pipeline that cannot keep up leaves the device waiting:
then no precision makes training faster.&lt;/li&gt;
&lt;li&gt;Sizes that are multiples of 8 (units, channels, batch) let Tensor Cores work.&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;Is it worth it?&lt;/h3&gt;
&lt;p&gt;Tick &lt;b&gt;Compare with float32&lt;/b&gt;: mpstudio trains float32 first, then the mixed
run from the same initial weights and data order, and overlays both in the charts, so
speed and accuracy compare like with like. More than one trial a side gives a median
and a range. The Comparison card then gives the verdict: worth it when the mixed run is
more than 5% faster and its validation accuracy is within 0.5 percentage points of
float32. On Ampere and newer GPUs the baseline runs TensorFlow&apos;s default TF32 matmuls
unless you choose strict float32, and is labelled with what it ran. Every run stays in
History, where two runs can be compared again and exported as a report.&lt;/p&gt;
</source>
        <translation>
&lt;h2&gt;混合精度的作用&lt;/h2&gt;
&lt;p&gt;混合精度让模型的大部分计算以 16 位类型进行，同时把模型的权重保持为 float32。Keras 称之为 &lt;i&gt;dtype 策略&lt;/i&gt;（精度策略）：&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;&lt;b&gt;float32&lt;/b&gt;：全部使用 32 位浮点数，是准确率的参照。&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_float16&lt;/b&gt;：各层以 float16 计算，变量保持 float32。在带 Tensor Core 的 NVIDIA GPU 上（计算能力 7.0 及以上：V100、T4、RTX 20 系列及更新型号、A100、H100），矩阵乘法和卷积快数倍，激活值占用的显存减半。&lt;/li&gt;
&lt;li&gt;&lt;b&gt;mixed_bfloat16&lt;/b&gt;：同上，但使用 bfloat16，它的指数范围与 float32 相同。在 TPU 上以及从 Ampere（计算能力 8.0）起的 NVIDIA GPU 上速度很快。&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;为什么输出保持 float32&lt;/h3&gt;
&lt;p&gt;最后一层（softmax）和损失以 float32 计算，因此概率和损失是精确的；设置面板中的层表会突出显示这一层。&lt;/p&gt;
&lt;h3&gt;损失缩放（仅 float16）&lt;/h3&gt;
&lt;p&gt;float16 无法表示小于约 6e-8 的数，较小的梯度会因此下溢为零。损失缩放在反向传播之前把损失乘以一个较大的因子（默认 32768），之后再把梯度除以该因子。&lt;b&gt;动态&lt;/b&gt;损失缩放在梯度溢出为无穷大时把因子减半并跳过这一步，在连续若干步正常之后再把它加倍：损失缩放图表会显示这一过程，并标出被跳过的步。bfloat16 不需要损失缩放。&lt;/p&gt;
&lt;h3&gt;什么时候没有帮助&lt;/h3&gt;
&lt;ul&gt;
&lt;li&gt;在没有半精度运算的 CPU 上，或在没有 Tensor Core 的 GPU 上，float16 往往比 float32
&lt;i&gt;更慢&lt;/i&gt;：硬件检测会说明是哪种情况，“各精度测速”会在本机上实际计时。&lt;/li&gt;
&lt;li&gt;模型太小，或输入数据管道跟不上，设备就会空等：这时任何精度都不能让训练更快。&lt;/li&gt;
&lt;li&gt;尺寸（单元数、通道数、批次大小）为 8 的倍数时，Tensor Core 才能发挥作用。&lt;/li&gt;
&lt;/ul&gt;
&lt;h3&gt;值得吗？&lt;/h3&gt;
&lt;p&gt;勾选&lt;b&gt;与 float32 对比&lt;/b&gt;：mpstudio 先训练 float32，再从相同的初始权重和数据顺序训练混合精度，并在图表中叠加显示两者，因此速度和准确率是在同等条件下比较的。每一方进行多次试验时，会给出中位数和范围。随后“对比”卡片给出结论：混合精度运行快 5% 以上，且其验证准确率与 float32 相差不超过 0.5 个百分点时，就值得使用。在 Ampere 及更新的 GPU 上，除非选择严格 float32，基线使用 TensorFlow 默认的 TF32 矩阵乘法，并标明它实际运行的是什么。每次运行都保存在“历史记录”中，可以在那里再次对比两次运行并导出报告。&lt;/p&gt;
</translation>
    </message>
    <message>
        <source>What mixed precision does</source>
        <translation>混合精度的作用</translation>
    </message>
    <message>
        <source>TensorFlow is still loading.</source>
        <translation>TensorFlow 仍在加载。</translation>
    </message>
    <message>
        <source>A workbench for mixed-precision training with TensorFlow: see what float16 and bfloat16 do on your hardware.</source>
        <translation>用 TensorFlow 进行混合精度训练的工作台：看看 float16 和 bfloat16 在你的硬件上能做什么。</translation>
    </message>
    <message>
        <source>Licensed under the Apache License 2.0.</source>
        <translation>本软件依据 Apache 许可证 2.0 版授权。</translation>
    </message>
    <message>
        <source>About mpstudio</source>
        <translation>关于 mpstudio</translation>
    </message>
</context>
<context>
    <name>LayerTable</name>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>variables</source>
        <translation>变量</translation>
    </message>
    <message>
        <source>params</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>The output layer computes in float32: the softmax and the loss stay exact even when the layers before it run in half precision.</source>
        <translation>输出层以 float32 计算：即使之前的层以半精度运行，softmax 和损失也保持精确。</translation>
    </message>
    <message>
        <source>Model preview appears when TensorFlow has loaded.</source>
        <translation>TensorFlow 加载完成后显示模型预览。</translation>
    </message>
</context>
<context>
    <name>LossScalingForm</name>
    <message>
        <source>dynamic</source>
        <translation>动态</translation>
    </message>
    <message>
        <source>fixed factor</source>
        <translation>固定因子</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Not used under float32: float32 gradients do not underflow.</source>
        <translation>float32 下不使用：float32 梯度不会下溢。</translation>
    </message>
    <message>
        <source>Not needed under mixed_bfloat16: bfloat16 keeps float32&apos;s exponent range, so small gradients do not underflow.</source>
        <translation>mixed_bfloat16 下不需要：bfloat16 保留了 float32 的指数范围，小梯度不会下溢。</translation>
    </message>
    <message>
        <source>Scales the loss up so small float16 gradients survive; an overflowing step is skipped and the scale halved.</source>
        <translation>放大损失，使较小的 float16 梯度得以保留；溢出的步会被跳过，缩放因子减半。</translation>
    </message>
    <message>
        <source>A constant scale: no overflow detection, so a step that overflows diverges.</source>
        <translation>固定的缩放因子：不检测溢出，溢出的步会导致发散。</translation>
    </message>
    <message>
        <source>No scaling: small float16 gradients can underflow to zero and training may stall.</source>
        <translation>不缩放：较小的 float16 梯度可能下溢为零，训练可能停滞。</translation>
    </message>
    <message>
        <source>The first loss scale; 32768 (2^15) is Keras&apos; default.</source>
        <translation>初始损失缩放因子；32768 (2^15) 是 Keras 的默认值。</translation>
    </message>
    <message>
        <source>Finite steps in a row before the scale doubles.</source>
        <translation>缩放因子翻倍前需连续出现的有限值步数。</translation>
    </message>
    <message>
        <source>Initial scale</source>
        <translation>初始缩放因子</translation>
    </message>
    <message>
        <source>Growth steps</source>
        <translation>增长步数</translation>
    </message>
    <message>
        <source>Scale numbers</source>
        <translation>缩放参数</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Factor</source>
        <translation>因子</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Setup</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>对比</translation>
    </message>
</context>
<context>
    <name>SetupPanel</name>
    <message>
        <source>auto (on for GPUs)</source>
        <translation>自动（GPU 上开启）</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Keras fit()</source>
        <translation>Keras fit()</translation>
    </message>
    <message>
        <source>custom tf.function loop</source>
        <translation>自定义 tf.function 循环</translation>
    </message>
    <message>
        <source>Runs float32 first, then the mixed run from the same initial weights and data order, so the charts and the comparison card compare like with like</source>
        <translation>先运行 float32，再用相同的初始权重和数据顺序运行混合精度，使图表和对比卡片的比较条件一致</translation>
    </message>
    <message>
        <source>Each side runs this many times, alternating (float32, mixed, float32, …); the card shows the median speed and its range</source>
        <translation>每一方运行这么多次，交替进行（float32、混合精度、float32、…）；卡片显示速度的中位数及其范围</translation>
    </message>
    <message>
        <source>TensorFlow default (TF32 on Ampere+)</source>
        <translation>TensorFlow 默认（Ampere 及更新架构上为 TF32）</translation>
    </message>
    <message>
        <source>strict float32 (TF32 off)</source>
        <translation>严格 float32（关闭 TF32）</translation>
    </message>
    <message>
        <source>What the float32 side computes in. On Ampere and newer GPUs TensorFlow runs float32 matmuls and convolutions as TF32 by default, which shrinks the visible gain; strict float32 turns TF32 off for the baseline. Other devices compute float32 either way, and the card says which it was.</source>
        <translation>float32 一方的计算方式。在 Ampere 及更新的 GPU 上，TensorFlow 默认以 TF32 运行 float32 矩阵乘法和卷积，这会缩小可见的加速；严格 float32 会为基线关闭 TF32。其他设备无论如何都以 float32 计算，卡片会说明实际情况。</translation>
    </message>
    <message>
        <source>Trace a few steady steps of each side with TensorFlow&apos;s profiler: time per op type for float32 and mixed side by side, the casts mixed precision added and the share of a step spent waiting for input. The card then names the ops that made mixed precision slower.</source>
        <translation>用 TensorFlow 的性能分析器跟踪每一方的几个稳定步：float32 与混合精度并排的每类算子耗时、混合精度新增的类型转换，以及一步中等待输入的占比。卡片随后会指出使混合精度变慢的算子。</translation>
    </message>
    <message>
        <source>Mixed precision halves activation memory, so a larger batch often fits; the linear scaling rule (Goyal et al. 2017) keeps the per-example step size: scale the learning rate with the batch, and use a warmup for large factors</source>
        <translation>混合精度使激活值内存减半，因此通常能容纳更大的批次；线性缩放规则 (Goyal et al. 2017) 保持每个样本的步长：学习率随批次大小等比缩放，倍数较大时使用预热</translation>
    </message>
    <message>
        <source>a multi-worker comparison runs from the command line: mpstudio compare --strategy multiworker on every host</source>
        <translation>多机对比运行需在命令行中进行：在每台主机上运行 `mpstudio compare --strategy multiworker`</translation>
    </message>
    <message>
        <source>Examples per step, per replica (per device)</source>
        <translation>每步的样本数，按每副本（每个设备）计</translation>
    </message>
    <message>
        <source>Compare with float32</source>
        <translation>与 float32 对比</translation>
    </message>
    <message>
        <source>Profile ops (why slower?)</source>
        <translation>分析算子（为什么变慢？）</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批次大小</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Loop</source>
        <translation>训练循环</translation>
    </message>
    <message>
        <source>Trials</source>
        <translation>试验次数</translation>
    </message>
    <message>
        <source>Baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Loss scaling</source>
        <translation>损失缩放</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Distribution</source>
        <translation>分布式训练</translation>
    </message>
    <message>
        <source>Training aids</source>
        <translation>训练辅助</translation>
    </message>
    <message>
        <source>Use {rate} for batch {batch} (linear rule)</source>
        <translation>批次 {batch} 使用 {rate}（线性规则）</translation>
    </message>
    <message>
        <source> This is a large factor: set warmup steps under Distribution.</source>
        <translation>这个倍数较大：请在“分布式训练”中设置预热步数。</translation>
    </message>
    <message>
        <source>{tip}. The learning rate {rate} was set for batch {old}; batch {batch} is ×{factor}.{warm}</source>
        <translation>{tip}。学习率 {rate} 是按批次 {old} 设定的；批次 {batch} 是其 ×{factor}。{warm}</translation>
    </message>
    <message>
        <source>The run already is float32: pick a mixed precision to compare with it</source>
        <translation>本次运行已是 float32：请选择一种混合精度来与之对比</translation>
    </message>
    <message>
        <source>TensorFlow is still loading…</source>
        <translation>TensorFlow 仍在加载…</translation>
    </message>
    <message>
        <source>Stop now</source>
        <translation>立即停止</translation>
    </message>
    <message>
        <source>End the engine process now: the run is kept as stopped with what it measured</source>
        <translation>立即结束引擎进程：本次运行以“已停止”保留，连同已测得的数据</translation>
    </message>
    <message>
        <source>Stop before the next batch</source>
        <translation>在下一个批次之前停止</translation>
    </message>
    <message>
        <source>The hardware check marks each precision with what it means on this machine.</source>
        <translation>硬件检测会标出每种精度在本机上的含义。</translation>
    </message>
</context>
<context>
    <name>Translations</name>
    <message>
        <source>No font with Chinese characters is installed, so Chinese text shows as boxes. Install one (Debian/Ubuntu: `sudo apt install fonts-noto-cjk`; Fedora: `sudo dnf install google-noto-sans-cjk-fonts`; macOS and Windows have one) and start mpstudio again, or choose View &gt; Language &gt; English.</source>
        <translation>未安装含中文字符的字体，中文文字会显示为方框。请安装一种（Debian/Ubuntu：`sudo apt install fonts-noto-cjk`；Fedora：`sudo dnf install google-noto-sans-cjk-fonts`；macOS 和 Windows 已自带），然后重新启动 mpstudio，或选择“视图 &gt; 语言 &gt; English”。</translation>
    </message>
</context>
<context>
    <name>ViewMenu</name>
    <message>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show or hide the {panel} panel</source>
        <translation>显示或隐藏“{panel}”面板</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The new language takes effect the next time mpstudio starts.</source>
        <translation>新的语言将在下次启动 mpstudio 时生效。</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <source>Stop &amp;now</source>
        <translation>立即停止(&amp;N)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Import dataset…</source>
        <translation>导入数据集(&amp;I)…</translation>
    </message>
    <message>
        <source>Train on an .npz or .csv file or a folder of images</source>
        <translation>用 .npz 或 .csv 文件或者图像文件夹进行训练</translation>
    </message>
    <message>
        <source>&amp;Open run config…</source>
        <translation>打开运行配置(&amp;O)…</translation>
    </message>
    <message>
        <source>Load a run spec saved as TOML (also `mpstudio train --config`)</source>
        <translation>加载保存为 TOML 的运行配置（命令行：`mpstudio train --config`）</translation>
    </message>
    <message>
        <source>&amp;Save run config…</source>
        <translation>保存运行配置(&amp;S)…</translation>
    </message>
    <message>
        <source>Save this setup as a TOML run spec</source>
        <translation>把当前设置保存为 TOML 运行配置</translation>
    </message>
    <message>
        <source>&amp;Export model…</source>
        <translation>导出模型(&amp;E)…</translation>
    </message>
    <message>
        <source>Save the model the last run trained</source>
        <translation>保存上一次运行训练出的模型</translation>
    </message>
    <message>
        <source>Export &amp;report…</source>
        <translation>导出报告(&amp;R)…</translation>
    </message>
    <message>
        <source>Save the comparison card, verdict and charts as an HTML page, and the metrics as CSV</source>
        <translation>把对比卡片、结论和图表保存为 HTML 页面，并把指标保存为 CSV</translation>
    </message>
    <message>
        <source>Save &amp;charts…</source>
        <translation>保存图表(&amp;C)…</translation>
    </message>
    <message>
        <source>Save the four charts as PNG or SVG</source>
        <translation>把四张图表保存为 PNG 或 SVG</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>Train with this setup</source>
        <translation>按当前设置开始训练</translation>
    </message>
    <message>
        <source>Stop the run before its next batch (then, if it goes on, Stop now)</source>
        <translation>在下一个批次之前停止运行（若仍未停止，再用“立即停止”）</translation>
    </message>
    <message>
        <source>&amp;Hardware check</source>
        <translation>硬件检测(&amp;H)</translation>
    </message>
    <message>
        <source>Detect the devices and what each precision does on them</source>
        <translation>检测设备，以及每种精度在这些设备上的表现</translation>
    </message>
    <message>
        <source>&amp;Measure precisions</source>
        <translation>各精度测速(&amp;M)</translation>
    </message>
    <message>
        <source>Time float32, float16 and bfloat16 kernels on this machine</source>
        <translation>在本机上为 float32、float16 和 bfloat16 的计算内核计时</translation>
    </message>
    <message>
        <source>Chec&amp;k training on this machine…</source>
        <translation>检查本机上的训练(&amp;K)…</translation>
    </message>
    <message>
        <source>A few real training steps per template and precision, the build, driver, TF32 and timing, as a pass/warn/fail report (also `mpstudio doctor`)</source>
        <translation>每个模型模板和精度各做几步真实训练，并检查构建、驱动、TF32 和计时，给出通过/警告/失败报告（命令行：`mpstudio doctor`）</translation>
    </message>
    <message>
        <source>Open in Tensor&amp;Board</source>
        <translation>在 TensorBoard 中打开(&amp;B)</translation>
    </message>
    <message>
        <source>Show the TensorBoard logs of the run selected in History (or the last run) in the browser</source>
        <translation>在浏览器中显示“历史记录”中所选运行（或上一次运行）的 TensorBoard 日志</translation>
    </message>
    <message>
        <source>What &amp;mixed precision does</source>
        <translation>混合精度的作用(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;About mpstudio</source>
        <translation>关于 mpstudio(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
</TS>
