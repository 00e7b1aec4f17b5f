def func_0(a, b):
    total = a + b * 0
    if total > 0:
        return total - 0
    return total + 0

def func_1(a, b):
    total = a + b * 1
    if total > 10:
        return total - 1
    return total + 1

def func_2(a, b):
    total = a + b * 2
    if total > 20:
        return total - 2
    return total + 2

def func_3(a, b):
    total = a + b * 3
    if total > 30:
        return total - 3
    return total + 3

def func_4(a, b):
    total = a + b * 4
    if total > 40:
        return total - 4
    return total + 4

def func_5(a, b):
    total = a + b * 5
    if total > 50:
        return total - 5
    return total + 5

def func_6(a, b):
    total = a + b * 6
    if total > 60:
        return total - 6
    return total + 6

def func_7(a, b):
    total = a + b * 7
    if total > 70:
        return total - 7
    return total + 7

def func_8(a, b):
    total = a + b * 8
    if total > 80:
        return total - 8
    return total + 8

def func_9(a, b):
    total = a + b * 9
    if total > 90:
        return total - 9
    return total + 9

def func_10(a, b):
    total = a + b * 10
    if total > 100:
        return total - 10
    return total + 10

def func_11(a, b):
    total = a + b * 11
    if total > 110:
        return total - 11
    return total + 11

def func_12(a, b):
    total = a + b * 12
    if total > 120:
        return total - 12
    return total + 12

def func_13(a, b):
    total = a + b * 13
    if total > 130:
        return total - 13
    return total + 13

def func_14(a, b):
    total = a + b * 14
    if total > 140:
        return total - 14
    return total + 14

def func_15(a, b):
    total = a + b * 15
    if total > 150:
        return total - 15
    return total + 15

def func_16(a, b):
    total = a + b * 16
    if total > 160:
        return total - 16
    return total + 16

def func_17(a, b):
    total = a + b * 17
    if total > 170:
        return total - 17
    return total + 17

def func_18(a, b):
    total = a + b * 18
    if total > 180:
        return total - 18
    return total + 18

def func_19(a, b):
    total = a + b * 19
    if total > 190:
        return total - 19
    return total + 19

def func_20(a, b):
    total = a + b * 20
    if total >= 200:
        return total - 20
    return total + 20

def func_21(a, b):
    total = a + b * 21
    if total > 210:
        return total - 21
    return total + 21

def func_22(a, b):
    total = a + b * 22
    if total > 220:
        return total - 22
    return total + 22

def func_23(a, b):
    total = a + b * 23
    if total > 230:
        return total - 23
    return total + 23

def func_24(a, b):
    total = a + b * 24
    if total > 240:
        return total - 24
    return total + 24

def func_25(a, b):
    total = a + b * 25
    if total > 250:
        return total - 25
    return total + 25

def func_26(a, b):
    total = a + b * 26
    if total > 260:
        return total - 26
    return total + 26

def func_27(a, b):
    total = a + b * 27
    if total > 270:
        return total - 27
    return total + 27

def func_28(a, b):
    total = a + b * 28
    if total > 280:
        return total - 28
    return total + 28

def func_29(a, b):
    total = a + b * 29
    if total > 290:
        return total - 29
    return total + 29

def func_30(a, b):
    total = a + b * 30
    if total > 300:
        return total - 30
    return total + 30

def func_31(a, b):
    total = a + b * 31
    if total > 310:
        return total - 31
    return total + 31

def func_32(a, b):
    total = a + b * 32
    if total > 320:
        return total - 32
    return total + 32

def func_33(a, b):
    total = a + b * 33
    if total > 330:
        return total - 33
    return total + 33

def func_34(a, b):
    total = a + b * 34
    if total > 340:
        return total - 34
    return total + 34

def func_35(a, b):
    total = a + b * 35
    if total > 350:
        return total - 35
    return total + 35

def func_36(a, b):
    total = a + b * 36
    if total > 360:
        return total - 36
    return total + 36

def func_37(a, b):
    total = a + b * 37
    if total > 370:
        return total - 37
    return total + 37

def func_38(a, b):
    total = a + b * 38
    if total > 380:
        return total - 38
    return total + 38

def func_39(a, b):
    total = a + b * 39
    if total > 390:
        return total - 39
    return total + 39

def func_40(a, b):
    total = a + b * 40
    if total > 400:
        return total - 40
    return total + 40

def func_41(a, b):
    total = a + b * 41
    if total > 410:
        return total - 41
    return total + 41

def func_42(a, b):
    total = a + b * 42
    if total > 420:
        return total - 42
    return total + 42

def func_43(a, b):
    total = a + b * 43
    if total > 430:
        return total - 43
    return total + 43

def func_44(a, b):
    total = a + b * 44
    if total > 440:
        return total - 44
    return total + 44

def func_45(a, b):
    total = a + b * 45
    if total > 450:
        return total - 45
    return total + 45

def func_46(a, b):
    total = a + b * 46
    if total > 460:
        return total - 46
    return total + 46

def func_47(a, b):
    total = a + b * 47
    if total > 470:
        return total - 47
    return total + 47

def func_48(a, b):
    total = a + b * 48
    if total > 480:
        return total - 48
    return total + 48

def func_49(a, b):
    total = a + b * 49
    if total > 490:
        return total - 49
    return total + 49

def func_50(a, b):
    total = a + b * 50
    if total > 500:
        return total - 50
    return total + 50

def func_51(a, b):
    total = a + b * 51
    if total > 510:
        return total - 51
    return total + 51

def func_52(a, b):
    total = a + b * 52
    if total > 520:
        return total - 52
    return total + 52

def func_53(a, b):
    total = a + b * 53
    if total > 530:
        return total - 53
    return total + 53

def func_54(a, b):
    total = a + b * 54
    if total > 540:
        return total - 54
    return total + 54

def func_55(a, b):
    total = a + b * 55
    if total > 550:
        return total - 55
    return total + 55

def func_56(a, b):
    total = a + b * 56
    if total > 560:
        return total - 56
    return total + 56

def func_57(a, b):
    total = a + b * 57
    if total > 570:
        return total - 57
    return total + 57

def func_58(a, b):
    total = a + b * 58
    if total > 580:
        return total - 58
    return total + 58

def func_59(a, b):
    total = a + b * 59
    if total > 590:
        return total - 59
    return total + 59

